// float32 matmuls big enough to be split across nabla's threads (slices of
// C's rows, or of its columns when C is wider than tall, each a
// single-threaded oneDNN sgemm, starting at multiples of 16) against the
// float64 product, for plain and transposed operands and thread counts that
// leave uneven slices: a slice left out or written twice shows as a large
// error.
#include <gtest/gtest.h>

#include <tuple>

#include "nabla/nabla.h"

namespace nabla {
namespace {

TEST(GemmThreads, SlicedProductsMatchFloat64) {
  int saved = get_num_threads();
  manual_seed(9);
  struct Shape3 {
    int64_t m, k, n;
  };
  // 64x1000 @ 1000x100 (the seed MLP): columns cut 48 + 52; 33 and 47 rows
  // or columns: a last slice of 17 or 31; 48 columns in three: 16 each.
  for (Shape3 s : {Shape3{200, 300, 70}, Shape3{64, 3136, 128}, Shape3{37, 129, 333}, Shape3{128, 64, 3136},
                   Shape3{64, 1000, 100}, Shape3{33, 2000, 20}, Shape3{20, 2000, 47}, Shape3{30, 1200, 48}}) {
    Tensor a = randn({s.m, s.k}), b = randn({s.k, s.n});
    Tensor at = randn({s.k, s.m}).t(), bt = randn({s.n, s.k}).t();  // transposed views
    for (int threads : {1, 2, 3, 4}) {
      set_num_threads(threads);
      for (auto [x, y] : {std::pair{a, b}, std::pair{at, b}, std::pair{a, bt}, std::pair{at, bt}}) {
        Tensor expected = mm(x.to(kFloat64), y.to(kFloat64));
        double err = max(abs(mm(x, y).to(kFloat64) - expected)).item<double>();
        EXPECT_LT(err, 1e-3) << s.m << "x" << s.k << "x" << s.n << " threads " << threads;
      }
    }
  }
  set_num_threads(saved);
}

// The bfloat16 product (autocast's) is sliced the same way: every slice is
// written, whatever the thread count.
TEST(GemmThreads, SlicedBFloat16ProductsMatchFloat64) {
  int saved = get_num_threads();
  manual_seed(10);
  for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{64, 1000, 100}, {20, 2000, 47}, {150, 700, 40}}) {
    Tensor a = randn({m, k}).to(kBFloat16), b = randn({k, n}).to(kBFloat16);
    Tensor expected = mm(a.to(kFloat64), b.to(kFloat64));
    double scale = max(abs(expected)).item<double>();
    for (int threads : {1, 2, 3}) {
      set_num_threads(threads);
      double err = max(abs(mm(a, b).to(kFloat64) - expected)).item<double>();
      EXPECT_LT(err / scale, 1e-2) << m << "x" << k << "x" << n << " threads " << threads;
    }
  }
  set_num_threads(saved);
}

}  // namespace
}  // namespace nabla

// float32 matmuls big enough to be split across nabla's threads (slices of
// C's rows, or of its columns when C is wider than tall, each a
// single-threaded oneDNN sgemm) against the float64 product, for plain and
// transposed operands and thread counts that leave uneven slices.
#include <gtest/gtest.h>

#include "nabla/nabla.h"

namespace nabla {
namespace {

TEST(GemmThreads, SlicedProductsMatchFloat64) {
  int saved = get_num_threads();
  manual_seed(9);
  struct Shape3 {
    int64_t m, k, n;
  };
  for (Shape3 s : {Shape3{200, 300, 70}, Shape3{64, 3136, 128}, Shape3{37, 129, 333}, Shape3{128, 64, 3136}}) {
    Tensor a = randn({s.m, s.k}), b = randn({s.k, s.n});
    Tensor at = randn({s.k, s.m}).t(), bt = randn({s.n, s.k}).t();  // transposed views
    for (int threads : {1, 2, 3}) {
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

}  // namespace
}  // namespace nabla

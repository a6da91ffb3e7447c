// The float32 "NT" product (A @ B^T with both operands' rows along k), which
// kernels/cpu/gemm_nt.cpp computes as 4x4 blocks of dot products where the
// CPU has AVX-512 and the shape is in its range: edges that are not
// multiples of the block (4) or of the vector (16 along k), strided rows,
// and the thread split, each against the float64 product.
#include <gtest/gtest.h>

#include <cmath>

#include "nabla/kernels/cpu/gemm_nt.h"
#include "nabla/nabla.h"

namespace nabla {
namespace {

double max_error(const Tensor& x, const Tensor& y) {
  Tensor expected = mm(x.to(kFloat64), y.to(kFloat64));
  return max(abs(mm(x, y).to(kFloat64) - expected)).item<double>();
}

TEST(GemmNT, EdgeSizesMatchFloat64) {
  manual_seed(11);
  struct Shape3 {
    int64_t m, k, n;
  };
  // m, n: 1, a multiple of 4, one past, three past; k: 64 (the smallest the
  // kernel takes), a multiple of 16 plus 1 and plus 15, and 1000 (the seed
  // MLP's); the last two are outside its range (oneDNN's path).
  for (Shape3 s : {Shape3{64, 1000, 100}, Shape3{1, 64, 1}, Shape3{5, 65, 7}, Shape3{3, 79, 130}, Shape3{128, 1024, 128},
                   Shape3{63, 1001, 99}, Shape3{4, 20, 4}, Shape3{129, 64, 8}}) {
    Tensor a = randn({s.m, s.k}), w = randn({s.n, s.k});
    EXPECT_LT(max_error(a, w.t()), 1e-4 * std::sqrt(static_cast<double>(s.k)) * 4) << s.m << "x" << s.k << "x" << s.n;
  }
  EXPECT_TRUE(cpu::sgemm_nt_dot_applies(64, 100, 1000) || !__builtin_cpu_supports("avx512f"));
  EXPECT_FALSE(cpu::sgemm_nt_dot_applies(4, 4, 20));
}

TEST(GemmNT, StridedRowsAndThreadsMatchFloat64) {
  int saved = get_num_threads();
  manual_seed(12);
  // Rows longer than k (column slices of wider matrices): lda = 300, ldb = 310.
  Tensor a = randn({70, 300}).narrow(1, 3, 257), w = randn({90, 310}).narrow(1, 5, 257);
  for (int threads : {1, 2, 3}) {
    set_num_threads(threads);
    EXPECT_LT(max_error(a, w.t()), 1e-3) << "threads " << threads;
  }
  set_num_threads(saved);
  // A 3-D batch whose matrices are transposed views: bmm(x, y^T).
  Tensor x = randn({3, 9, 100}), y = randn({3, 13, 100});
  Tensor got = bmm(x, y.transpose(1, 2)).to(kFloat64);
  Tensor expected = bmm(x.to(kFloat64), y.to(kFloat64).transpose(1, 2));
  EXPECT_LT(max(abs(got - expected)).item<double>(), 1e-3);
}

TEST(GemmNT, NonFiniteValuesPropagate) {
  // A NaN or inf in one row of A reaches exactly that row of C.
  Tensor a = ones({6, 80}), w = ones({5, 80});
  a[2][7].fill_(NAN);
  Tensor c = mm(a, w.t());
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t j = 0; j < 5; ++j) {
      float v = c[i][j].item<float>();
      if (i == 2)
        EXPECT_TRUE(std::isnan(v));
      else
        EXPECT_EQ(v, 80.0f);
    }
}

}  // namespace
}  // namespace nabla

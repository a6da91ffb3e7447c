// The float32 "NT" product (A @ B^T with both operands' rows along k), which
// kernels/cpu/gemm_nt.cpp computes as 4x4 blocks of dot products where the
// CPU has AVX-512 and the shape is in its range: edges that are not
// multiples of the block (4) or of the vector (16 along k), strided rows,
// and the thread split, each against the float64 product.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

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
  // m, n: 1, multiples of 4, one and three past; k: multiples of 16 plus
  // 1 and plus 15 (a masked tail), 512 and 1000 (the seed MLP's), 3136 (the
  // Fashion-MNIST CNN's first linear layer) and 2051. The last two are
  // outside the kernel's range (oneDNN's path).
  std::vector<Shape3> shapes = {{64, 1000, 100}, {1, 512, 1},      {5, 257, 7},     {3, 271, 99},
                                {63, 1001, 97},  {9, 129, 13},     {128, 1024, 128}, {64, 3136, 128},
                                {17, 2051, 99},  {4, 20, 4},       {129, 64, 8}};
  for (Shape3 s : shapes) {
    Tensor a = randn({s.m, s.k}), w = randn({s.n, s.k});
    EXPECT_LT(max_error(a, w.t()), 1e-4 * std::sqrt(static_cast<double>(s.k)) * 4) << s.m << "x" << s.k << "x" << s.n;
  }
  if (__builtin_cpu_supports("avx512f")) {
    for (std::size_t i = 0; i + 2 < shapes.size(); ++i)
      EXPECT_TRUE(cpu::sgemm_nt_dot_applies(shapes[i].m, shapes[i].n, shapes[i].k)) << i;
  }
  EXPECT_FALSE(cpu::sgemm_nt_dot_applies(4, 4, 20));
  EXPECT_FALSE(cpu::sgemm_nt_dot_applies(129, 8, 64));
  EXPECT_FALSE(cpu::sgemm_nt_dot_applies(128, 128, 2048));  // both sides large: oneDNN
  EXPECT_FALSE(cpu::sgemm_nt_dot_applies(64, 64, 4097));
}

TEST(GemmNT, StridedRowsAndThreadsMatchFloat64) {
  int saved = get_num_threads();
  manual_seed(12);
  // Rows longer than k (column slices of wider matrices): lda = 300, ldb = 310;
  // 2 and 3 threads split C's 90 columns.
  Tensor a = randn({60, 300}).narrow(1, 3, 257), w = randn({90, 310}).narrow(1, 5, 257);
  if (__builtin_cpu_supports("avx512f")) EXPECT_TRUE(cpu::sgemm_nt_dot_applies(60, 30, 257));
  for (int threads : {1, 2, 3}) {
    set_num_threads(threads);
    EXPECT_LT(max_error(a, w.t()), 1e-3) << "threads " << threads;
  }
  set_num_threads(saved);
  // A 3-D batch whose matrices are transposed views: bmm(x, y^T).
  Tensor x = randn({3, 9, 300}), y = randn({3, 13, 300});
  Tensor got = bmm(x, y.transpose(1, 2)).to(kFloat64);
  Tensor expected = bmm(x.to(kFloat64), y.to(kFloat64).transpose(1, 2));
  EXPECT_LT(max(abs(got - expected)).item<double>(), 1e-3);
}

TEST(GemmNT, NonFiniteValuesPropagate) {
  // A NaN or inf in one row of A reaches exactly that row of C.
  Tensor a = ones({6, 300}), w = ones({5, 300});
  a[2][7].fill_(NAN);
  Tensor c = mm(a, w.t());
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t j = 0; j < 5; ++j) {
      float v = c[i][j].item<float>();
      if (i == 2)
        EXPECT_TRUE(std::isnan(v));
      else
        EXPECT_EQ(v, 300.0f);
    }
}

}  // namespace
}  // namespace nabla

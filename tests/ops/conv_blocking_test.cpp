// The conv kernels put several samples' im2col columns into one GEMM, in
// blocks capped by a memory budget. The OpInfo samples are far too small to
// need more than one block; here a batch big enough to be split into blocks
// of unequal size (5 + 2 samples) must agree with running each sample alone.
// The 300x300 planes also take the per-sample weight-gradient GEMMs (the
// OpInfo samples' small planes take the one-GEMM-per-block path).
#include <gtest/gtest.h>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"

namespace nabla {
namespace {

using nabla::testing::assert_close;

class ConvBlocking : public ::testing::Test {
 protected:
  void SetUp() override {
    manual_seed(5);
    x = randn({7, 2, 300, 300}, dtype(kFloat64));
    w = randn({3, 2, 3, 3}, dtype(kFloat64));
    b = randn({3}, dtype(kFloat64));
    gy = randn({7, 3, 300, 300}, dtype(kFloat64));
  }
  Tensor x, w, b, gy;
};

TEST_F(ConvBlocking, Conv2dMatchesPerSample) {
  Tensor y = conv2d(x, w, b, {1}, {1});
  for (int64_t n = 0; n < 7; ++n)
    assert_close(y.narrow(0, n, 1), conv2d(x.narrow(0, n, 1), w, b, {1}, {1}),
                 {.rtol = 0.0, .atol = 1e-10, .msg = ::nabla::detail::concat("sample ", n)});
}

TEST_F(ConvBlocking, WeightGradMatchesSumOverSamples) {
  Tensor gw = conv2d_weight_grad(x, gy, {3, 2, 3, 3}, {1}, {1});
  Tensor expected = zeros({3, 2, 3, 3}, dtype(kFloat64));
  for (int64_t n = 0; n < 7; ++n)
    expected = expected + conv2d_weight_grad(x.narrow(0, n, 1), gy.narrow(0, n, 1), {3, 2, 3, 3}, {1}, {1});
  assert_close(gw, expected, {.rtol = 0.0, .atol = 1e-7});
  // A strided grad_output (the kernel packs it instead of reading in place).
  Tensor strided = gy.transpose(2, 3).contiguous().transpose(2, 3);
  ASSERT_FALSE(strided.is_contiguous());
  assert_close(conv2d_weight_grad(x, strided, {3, 2, 3, 3}, {1}, {1}), gw, {.rtol = 0.0, .atol = 1e-9});
}

TEST_F(ConvBlocking, ConvTranspose2dMatchesPerSample) {
  Tensor y = conv_transpose2d(gy, w, Tensor(), {1}, {1});
  for (int64_t n = 0; n < 7; ++n)
    assert_close(y.narrow(0, n, 1), conv_transpose2d(gy.narrow(0, n, 1), w, Tensor(), {1}, {1}),
                 {.rtol = 0.0, .atol = 1e-10, .msg = ::nabla::detail::concat("sample ", n)});
}

}  // namespace
}  // namespace nabla

// conv2d_relu in eager code: the fused op (oneDNN's ReLU post-op in float32,
// the im2col kernels otherwise) gives relu(conv2d(...))'s values and
// gradients, NaN included; nn::Sequential runs a Conv2d followed by a ReLU as
// that one op, and a ReLU followed by a MaxPool2d as the pooling then the
// ReLU while gradients are recorded. (Its OpInfo entries are in
// conv_test.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "nabla/autograd/node.h"
#include "nabla/kernels/cpu/conv.h"
#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"
#include "support/onednn_switch.h"

namespace nabla {
namespace {

using testing::assert_close;

using testing::OneDnnSwitch;

// float32 with finite operands runs oneDNN's ReLU post-op; a NaN operand
// (oneDNN's ReLU would make a NaN output 0) and oneDNN switched off run the
// convolution, then ReLU.
TEST(ConvRelu, MatchesReluOfConv2dOnBothKernelPaths) {
  for (bool onednn : {true, false}) {
    for (bool with_nan : {false, true}) {
      OneDnnSwitch path(onednn);
      manual_seed(3);
      Tensor xv = randn({2, 3, 7, 6}), wv = randn({4, 3, 3, 3}), bv = randn({4}), u = randn({2, 4, 4, 4});
      if (with_nan) {
        NoGradGuard no_grad;
        // A NaN that reaches some outputs.
        select(select(select(select(xv, 0, 0), 0, 1), 0, 2), 0, 2).fill_(std::numeric_limits<double>::quiet_NaN());
      }
      Tensor x1 = xv.clone().requires_grad_(true), w1 = wv.clone().requires_grad_(true);
      Tensor b1 = bv.clone().requires_grad_(true);
      Tensor x2 = xv.clone().requires_grad_(true), w2 = wv.clone().requires_grad_(true);
      Tensor b2 = bv.clone().requires_grad_(true);
      Tensor fused = conv2d_relu(x1, w1, b1, {2, 1}, {1, 0});
      Tensor plain = relu(conv2d(x2, w2, b2, {2, 1}, {1, 0}));
      EXPECT_EQ(fused.grad_fn()->name(), "conv2d_relu");
      EXPECT_EQ(isnan(fused).any().item<bool>(), with_nan) << "relu of a NaN convolution output stays NaN";
      assert_close(fused, plain, {.rtol = 1e-5, .atol = 1e-5, .equal_nan = true});
      (fused * u).sum().backward();
      (plain * u).sum().backward();
      assert_close(x1.grad(), x2.grad(), {.rtol = 1e-5, .atol = 1e-5, .equal_nan = true});
      assert_close(w1.grad(), w2.grad(), {.rtol = 1e-5, .atol = 1e-4, .equal_nan = true});
      assert_close(b1.grad(), b2.grad(), {.rtol = 1e-5, .atol = 1e-4, .equal_nan = true});
    }
  }
}

TEST(ConvRelu, SequentialRunsConvThenReluAsOneOp) {
  manual_seed(5);
  nn::Sequential seq(nn::Conv2d(2, 3, 3, 1, 1), nn::ReLU(), nn::Conv2d(3, 2, 3), nn::Tanh());
  Tensor x = randn({1, 2, 6, 6}).requires_grad_(true);
  Tensor y = seq.forward(x);
  // The last Conv2d is followed by a Tanh: not fused.
  EXPECT_EQ(y.grad_fn()->name(), "tanh");
  Tensor h = seq[0]->forward(x);
  nn::Sequential head(seq[0], seq[1]);
  Tensor fused = head.forward(x);
  EXPECT_EQ(fused.grad_fn()->name(), "conv2d_relu");
  assert_close(fused, relu(h), {.rtol = 1e-6, .atol = 1e-6});
  assert_close(y, tanh(seq[2]->forward(relu(h))), {.rtol = 1e-5, .atol = 1e-5});
}

// Conv2d > ReLU > MaxPool2d while recording gradients: the convolution,
// the pooling, then the ReLU on the pooled values. Max pooling commutes with
// ReLU, so values and all three gradients are the bits of the plain order,
// with windows that hold no positive value (relu's ties at 0 pick another
// argmax than the raw values do, whose gradient ReLU then zeroes) and NaNs.
TEST(ConvRelu, SequentialPoolsBeforeReluWhileRecording) {
  for (bool with_nan : {false, true}) {
    manual_seed(7);
    nn::Sequential seq(nn::Conv2d(2, 4, 3, 1, 1), nn::ReLU(), nn::Identity(), nn::MaxPool2d(2));
    seq.to(kFloat64);
    Tensor xv = randn({2, 2, 8, 7}, kFloat64), u = randn({2, 4, 4, 3}, kFloat64);
    if (with_nan) {  // one input NaN: NaN windows, and NaN weight gradients
      NoGradGuard no_grad;
      select(select(select(select(xv, 0, 1), 0, 0), 0, 5), 0, 2).fill_(std::numeric_limits<double>::quiet_NaN());
    }
    const auto& conv = static_cast<const nn::Conv2d&>(*seq[0]);
    Tensor x1 = xv.clone().requires_grad_(true), x2 = xv.clone().requires_grad_(true);
    Tensor w2 = conv.weight.detach().clone().requires_grad_(true);
    Tensor b2 = conv.bias.detach().clone().requires_grad_(true);

    Tensor y1 = seq.forward(x1);
    EXPECT_EQ(y1.grad_fn()->name(), "relu") << "the ReLU runs after the pooling";
    Tensor y2 = max_pool2d(relu(conv2d(x2, w2, b2, {1, 1}, {1, 1})), {2, 2});
    EXPECT_EQ(isnan(y2).any().item<bool>(), with_nan);
    EXPECT_TRUE((y2 == 0).any().item<bool>()) << "some window holds no positive value";
    const testing::CloseOptions exact{.rtol = 0, .atol = 0, .equal_nan = true};
    assert_close(y1, y2, exact);
    (y1 * u).sum().backward();
    (y2 * u).sum().backward();
    EXPECT_FALSE(isnan(x2.grad()).any().item<bool>());
    assert_close(x1.grad(), x2.grad(), exact);
    assert_close(conv.weight.grad(), w2.grad(), exact);
    assert_close(conv.bias.grad(), b2.grad(), exact);

    NoGradGuard no_grad;  // nothing recorded: conv2d_relu, then the pooling
    assert_close(seq.forward(xv), y2.detach(), exact);
  }
}

}  // namespace
}  // namespace nabla

// oneDNN's Winograd convolutions (nabla/onednn.h): on by default; the
// qualifying float32 shapes run Winograd in all three passes, within a
// documented error of the float64 convolution, every other shape keeps the
// direct convolution bit for bit, and switched off every shape runs direct.
#include "nabla/onednn.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"
#include "support/onednn_switch.h"

namespace nabla {
namespace {

using testing::assert_close;
using testing::WinogradSwitch;

// oneDNN's Winograd kernels need AVX-512 (its avx512_core: F, CD, BW, DQ, VL).
bool cpu_has_winograd() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") && onednn::enabled();
}

// A convolution's output and its input and weight gradients for the output
// gradient gy: the three passes.
struct ConvPasses {
  Tensor y, gx, gw;
};

ConvPasses conv_passes(const Tensor& x0, const Tensor& w0, const Tensor& b0, const Tensor& gy, int64_t stride,
                       int64_t padding) {
  Tensor x = x0.detach().requires_grad_(true), w = w0.detach().requires_grad_(true);
  Tensor y = conv2d(x, w, b0, {stride, stride}, {padding, padding});
  sum(y * gy).backward();
  return {y.detach(), x.grad(), w.grad()};
}

// max |got - ref| / max |ref| over the three passes, ref in float64.
struct PassErrors {
  double y, gx, gw;
};

double relative_error(const Tensor& got, const Tensor& ref) {
  return max(abs(got.to(kFloat64) - ref)).item<double>() / max(abs(ref)).item<double>();
}

PassErrors errors_vs_float64(const ConvPasses& got, const ConvPasses& ref) {
  return {relative_error(got.y, ref.y), relative_error(got.gx, ref.gx), relative_error(got.gw, ref.gw)};
}

struct WinogradInputs {
  Tensor x, w, b, gy;
};

// The second convolution of zoo::fashion_cnn (32 -> 64 channels, 3x3, pad 1), batch 8.
WinogradInputs cnn_layer_inputs(int64_t batch = 8) {
  manual_seed(7);
  return {randn({batch, 32, 14, 14}), randn({64, 32, 3, 3}) * 0.06, randn({64}) * 0.1, randn({batch, 64, 14, 14})};
}

ConvPasses float64_passes(const WinogradInputs& in, int64_t stride = 1, int64_t padding = 1) {
  return conv_passes(in.x.to(kFloat64), in.w.to(kFloat64), in.b.to(kFloat64),
                     in.gy.to(kFloat64), stride, padding);
}

TEST(Winograd, OnByDefault) {
  // NABLA_WINOGRAD=0 turns it off at start-up; ctest runs without it.
  if (std::getenv("NABLA_WINOGRAD")) GTEST_SKIP() << "NABLA_WINOGRAD is set";
  EXPECT_TRUE(onednn::winograd());
}

TEST(Winograd, AllThreePassesRunWinogradWithinTheDocumentedError) {
  if (!cpu_has_winograd()) GTEST_SKIP() << "oneDNN's Winograd kernels need AVX-512";
  WinogradInputs in = cnn_layer_inputs();
  ConvPasses ref = float64_passes(in);
  ConvPasses direct, wino;
  {
    WinogradSwitch off(false);
    onednn::ConvCounts before = onednn::conv_counts();
    direct = conv_passes(in.x, in.w, in.b, in.gy, 1, 1);
    EXPECT_EQ(onednn::conv_counts().winograd, before.winograd);
  }
  {
    WinogradSwitch on(true);
    onednn::ConvCounts before = onednn::conv_counts();
    wino = conv_passes(in.x, in.w, in.b, in.gy, 1, 1);
    // forward, input gradient, weight gradient: one call each on one thread,
    // one per batch slice on more.
    EXPECT_GE(onednn::conv_counts().winograd - before.winograd, 3);
    EXPECT_EQ(onednn::conv_counts().direct, before.direct);
  }
  PassErrors ed = errors_vs_float64(direct, ref), ew = errors_vs_float64(wino, ref);
  std::printf("relative error vs float64 (forward, input grad, weight grad): direct %.2g %.2g %.2g, winograd %.2g %.2g %.2g\n",
              ed.y, ed.gx, ed.gw, ew.y, ew.gx, ew.gw);
  // Winograd rounds differently (its transforms scale values up and down):
  // measured 1.1-1.4e-6 here against the direct path's 0.3-0.8e-6.
  EXPECT_LT(ew.y, 1e-5);
  EXPECT_LT(ew.gx, 1e-5);
  EXPECT_LT(ew.gw, 1e-5);
  EXPECT_LT(ed.y, 1e-5);
  // The two paths really differ (the switch is not a no-op).
  EXPECT_FALSE(equal(wino.y, direct.y));
}

TEST(Winograd, OtherShapesAndDtypesKeepTheDirectConvolutionBitForBit) {
  WinogradInputs in = cnn_layer_inputs(4);
  struct Shape {
    const char* what;
    Tensor x, w, b, gy;
    int64_t stride, padding;
  };
  manual_seed(3);
  std::vector<Shape> shapes = {
      {"1 input channel (a first layer)", randn({4, 1, 12, 12}), randn({32, 1, 3, 3}), randn({32}),
       randn({4, 32, 12, 12}), 1, 1},
      {"stride 2", in.x, in.w, in.b, randn({4, 64, 7, 7}), 2, 1},
      {"5x5 kernel", in.x, randn({64, 32, 5, 5}) * 0.03, in.b, randn({4, 64, 14, 14}), 1, 2},
      {"8 output channels", in.x, randn({8, 32, 3, 3}), randn({8}), randn({4, 8, 14, 14}), 1, 1},
      {"a 4x4 plane", randn({4, 32, 4, 4}), in.w, in.b, randn({4, 64, 4, 4}), 1, 1},
      {"float64", in.x.to(kFloat64), in.w.to(kFloat64), in.b.to(kFloat64), in.gy.to(kFloat64), 1, 1},
  };
  for (const Shape& s : shapes) {
    ConvPasses off_result, on_result;
    {
      WinogradSwitch off(false);
      off_result = conv_passes(s.x, s.w, s.b, s.gy, s.stride, s.padding);
    }
    WinogradSwitch on(true);
    int64_t winograd_before = onednn::conv_counts().winograd;
    on_result = conv_passes(s.x, s.w, s.b, s.gy, s.stride, s.padding);
    EXPECT_EQ(onednn::conv_counts().winograd, winograd_before) << s.what;
    EXPECT_TRUE(equal(on_result.y, off_result.y)) << s.what;
    EXPECT_TRUE(equal(on_result.gx, off_result.gx)) << s.what;
    EXPECT_TRUE(equal(on_result.gw, off_result.gw)) << s.what;
  }
}

TEST(Winograd, ChannelsLastAndCompiledStepsUseIt) {
  if (!cpu_has_winograd()) GTEST_SKIP() << "oneDNN's Winograd kernels need AVX-512";
  WinogradInputs in = cnn_layer_inputs(4);
  ConvPasses ref = float64_passes(in);
  WinogradSwitch on(true);
  // Channels-last tensors are reordered to oneDNN's blocked layout and back;
  // the gradients keep their inputs' format.
  int64_t before = onednn::conv_counts().winograd;
  ConvPasses nhwc = conv_passes(to(in.x, MemoryFormat::ChannelsLast), to(in.w, MemoryFormat::ChannelsLast), in.b,
                                to(in.gy, MemoryFormat::ChannelsLast), 1, 1);
  EXPECT_GE(onednn::conv_counts().winograd - before, 3);
  EXPECT_TRUE(is_contiguous(nhwc.y, MemoryFormat::ChannelsLast));
  PassErrors e = errors_vs_float64(nhwc, ref);
  EXPECT_LT(e.y, 1e-5);
  EXPECT_LT(e.gx, 1e-5);
  EXPECT_LT(e.gw, 1e-5);

  // A compiled training step: the graph's conv nodes run the same kernels.
  Tensor w = in.w.clone().requires_grad_(true);
  optim::SGD opt({w}, {{"lr", 1e-3}});
  auto step = compile([&](const std::vector<Tensor>& args) {
    opt.zero_grad();
    Tensor loss = sum(conv2d(args[0], w, in.b, {1, 1}, {1, 1}) * args[1]);
    loss.backward();
    opt.step();
    return std::vector<Tensor>{loss};
  });
  before = onednn::conv_counts().winograd;
  double loss = step({in.x, in.gy})[0].item<double>();
  EXPECT_GE(onednn::conv_counts().winograd - before, 2);  // forward, weight gradient
  double expected = sum(ref.y * in.gy.to(kFloat64)).item<double>();
  EXPECT_NEAR(loss, expected, 1e-5 * sum(abs(ref.y * in.gy.to(kFloat64))).item<double>());
  // The step moved w by -lr times a gradient within Winograd's error of float64's.
  assert_close(in.w.to(kFloat64) - w.detach().to(kFloat64), ref.gw * 1e-3,
               {.rtol = 0, .atol = 1e-3 * 1e-5 * max(abs(ref.gw)).item<double>() + 1e-8});
}

}  // namespace
}  // namespace nabla

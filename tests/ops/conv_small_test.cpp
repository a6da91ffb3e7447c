// The direct kernels for convolutions with few input taps (kernels/cpu/
// conv_small.h) against the im2col + GEMM kernels (the fast path switched
// off), in float32 and float64, NCHW and channels-last (one channel: the same
// memory; several: declined to oneDNN, compared all the same), with and without
// bias and ReLU, over batch sizes, odd sizes, channel counts that leave
// partial register tiles, and stride / padding / dilation combinations. The
// OpInfo suites (conv_test.cpp) and memory_format_test.cpp gradcheck the same
// kernels in float64, since their small samples route here.
#include "nabla/kernels/cpu/conv_small.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "nabla/core/memory_format.h"
#include "nabla/nabla.h"
#include "support/onednn_switch.h"

namespace nabla {
namespace {

using testing::expect_onednn_path_agrees;
using testing::OneDnnSwitch;

struct SmallCase {
  int64_t n, c, h, w, oc, kh, kw, sh, sw, ph, pw, dh, dw;
  std::string name() const {
    auto s = [](int64_t v) { return std::to_string(v); };
    return "N" + s(n) + " C" + s(c) + " " + s(h) + "x" + s(w) + " OC" + s(oc) + " k" + s(kh) + "x" + s(kw) + " s" +
           s(sh) + "," + s(sw) + " p" + s(ph) + "," + s(pw) + " d" + s(dh) + "," + s(dw);
  }
  Conv2dGeometry geometry() const {
    Conv2dGeometry g;
    g.batch = n, g.in_channels = c, g.in_h = h, g.in_w = w, g.out_channels = oc;
    g.kernel_h = kh, g.kernel_w = kw, g.groups = 1;
    return g;
  }
};

const SmallCase kSmallCases[] = {
    {64, 1, 28, 28, 32, 3, 3, 1, 1, 1, 1, 1, 1},  // the Fashion-MNIST CNN's first layer
    {1, 1, 28, 28, 32, 3, 3, 1, 1, 1, 1, 1, 1},   // batch 1
    {3, 1, 7, 5, 5, 3, 3, 1, 1, 1, 1, 1, 1},      // odd sizes, OC not a multiple of 4
    {2, 1, 9, 11, 17, 3, 3, 1, 1, 0, 0, 1, 1},    // no padding, OC 17
    {5, 1, 10, 9, 33, 3, 3, 2, 2, 1, 1, 1, 1},    // stride 2, OC past two vectors
    {2, 2, 11, 10, 4, 2, 2, 2, 2, 0, 0, 1, 1},    // 2 channels (8 taps), stride leaves a remainder
    {2, 1, 12, 13, 6, 3, 3, 1, 1, 2, 2, 2, 2},    // dilation 2
    {3, 2, 7, 12, 7, 1, 3, 1, 2, 0, 1, 1, 1},     // rectangular kernel, per-axis stride and padding
    {2, 1, 15, 15, 8, 3, 2, 3, 3, 2, 1, 1, 2},    // stride 3, dilation along the width
    {2, 4, 6, 6, 3, 1, 1, 1, 1, 0, 0, 1, 1},      // 1x1 over 4 channels
    {2, 9, 5, 7, 21, 1, 1, 2, 1, 0, 0, 1, 1},     // 1x1 over 9 channels, OC 21
    {2, 1, 5, 40, 20, 3, 3, 1, 1, 3, 4, 1, 1},    // padding larger than the kernel's reach
    {4, 1, 64, 3, 16, 3, 2, 1, 1, 1, 0, 2, 1},    // tall and narrow
    {2, 1, 1, 1, 9, 3, 3, 1, 1, 1, 1, 1, 1},      // 1x1 image: every tap but the centre in padding
    {2, 1, 12, 10, 6, 3, 3, 1, 1, 1, 1, 1, 1},    // 120 positions: a last tile of 3.5 vectors
    {1, 1, 100, 120, 8, 3, 3, 1, 1, 1, 1, 1, 1},  // several bands per sample
};


class ConvSmall : public ::testing::TestWithParam<SmallCase> {};

TEST_P(ConvSmall, MatchesIm2col) {
  const SmallCase& k = GetParam();
  ASSERT_TRUE(cpu::small_conv_applies(k.geometry(), kFloat32)) << "the case must route to the direct kernels";
  for (DType dt : {kFloat32, kFloat64})
    for (bool channels_last : {false, true}) {
      manual_seed(21);
      Tensor x = randn({k.n, k.c, k.h, k.w}).to(dt), w = randn({k.oc, k.c, k.kh, k.kw}).to(dt);
      Tensor b = randn({k.oc}).to(dt);
      const Shape s{k.sh, k.sw}, p{k.ph, k.pw}, d{k.dh, k.dw};  // IntList would dangle
      Tensor y = conv2d(x, w, b, s, p, d);
      Tensor gy = randn_like(y);
      if (channels_last) {
        x = to(x, MemoryFormat::ChannelsLast);
        w = to(w, MemoryFormat::ChannelsLast);
        gy = to(gy, MemoryFormat::ChannelsLast);
      }
      std::string name = k.name() + " " + std::string(dtype_name(dt)) + (channels_last ? " channels-last" : " NCHW");
      expect_onednn_path_agrees([&] { return conv2d(x, w, b, s, p, d); }, dt, "conv2d " + name);
      expect_onednn_path_agrees([&] { return conv2d(x, w, Tensor(), s, p, d); }, dt, "conv2d no bias " + name);
      expect_onednn_path_agrees([&] { return conv2d_relu(x, w, b, s, p, d); }, dt, "conv2d_relu " + name);
      expect_onednn_path_agrees([&] { return conv2d_relu(x, w, Tensor(), s, p, d); }, dt, "conv2d_relu no bias " + name);
      expect_onednn_path_agrees([&] { return conv2d_weight_grad(x, gy, w.sizes(), s, p, d); }, dt,
                         "conv2d_weight_grad " + name);
      if (channels_last && k.c > 1) {  // an NHWC output (oneDNN's or im2col's: the direct kernels decline it)
        OneDnnSwitch on(true);
        EXPECT_TRUE(is_contiguous(conv2d(x, w, b, s, p, d), MemoryFormat::ChannelsLast)) << name;
      }
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, ConvSmall, ::testing::ValuesIn(kSmallCases));

TEST(ConvSmallPath, RoutesOnlyFewTapsWithoutGroups) {
  SmallCase first{64, 1, 28, 28, 32, 3, 3, 1, 1, 1, 1, 1, 1};
  Conv2dGeometry g = first.geometry();
  EXPECT_TRUE(cpu::small_conv_applies(g, kFloat32));
  EXPECT_TRUE(cpu::small_conv_applies(g, kFloat64));
  EXPECT_FALSE(cpu::small_conv_applies(g, kBFloat16));  // oneDNN's bfloat16 primitives
  g.in_channels = 2;  // 18 taps: oneDNN
  EXPECT_FALSE(cpu::small_conv_applies(g, kFloat32));
  g.kernel_h = g.kernel_w = 1, g.groups = 2;  // grouped: oneDNN
  EXPECT_FALSE(cpu::small_conv_applies(g, kFloat32));
}

// Strided (non-contiguous) input and output gradient, and an output gradient
// smaller than the natural output (conv_transpose2d's weight gradient asks for
// this): the missing positions count as zero.
TEST(ConvSmallPath, StridedOperandsAndNarrowedGradOutput) {
  manual_seed(22);
  Tensor x = randn({3, 1, 10, 12}).transpose(2, 3);  // [3, 1, 12, 10]
  Tensor w = randn({5, 1, 3, 3});
  Tensor gy = randn({3, 5, 10, 12}).transpose(2, 3);  // [3, 5, 12, 10], k 3 padding 1
  ASSERT_FALSE(x.is_contiguous());
  ASSERT_FALSE(gy.is_contiguous());
  expect_onednn_path_agrees([&] { return conv2d(x, w, Tensor(), {1}, {1}); }, kFloat32, "strided conv2d");
  expect_onednn_path_agrees([&] { return conv2d_weight_grad(x, gy, {5, 1, 3, 3}, {1}, {1}); }, kFloat32,
                     "strided conv2d_weight_grad");
  Tensor xn = randn({2, 1, 12, 12});
  Tensor gn = randn({2, 4, 5, 6});  // natural output 6x6 (k 3, stride 2, padding 1)
  for (DType dt : {kFloat32, kFloat64})
    expect_onednn_path_agrees([&] { return conv2d_weight_grad(xn.to(dt), gn.to(dt), {4, 1, 3, 3}, {2}, {1}); }, dt,
                       "narrowed grad_output");
}

// conv2d_relu keeps NaN (as relu does) and makes -inf 0; the weight
// gradient sums a NaN in.
TEST(ConvSmallPath, NanAndInfinity) {
  OneDnnSwitch on(true);
  Tensor x = zeros({1, 1, 4, 4}), w = ones({2, 1, 1, 1}), b = zeros({2});
  {
    NoGradGuard no_grad;
    select(select(select(select(x, 0, 0), 0, 0), 0, 1), 0, 2).fill_(std::numeric_limits<double>::quiet_NaN());
    select(select(select(select(x, 0, 0), 0, 0), 0, 2), 0, 3).fill_(-std::numeric_limits<double>::infinity());
  }
  Tensor y = conv2d_relu(x, w, b);
  EXPECT_TRUE(std::isnan(y.index({0, 1, 1, 2}).item<double>()));
  EXPECT_EQ(y.index({0, 1, 2, 3}).item<double>(), 0.0);
  EXPECT_EQ(y.index({0, 0, 0, 0}).item<double>(), 0.0);
  Tensor gw = conv2d_weight_grad(x, ones({1, 2, 4, 4}), {2, 1, 1, 1});
  EXPECT_TRUE(std::isnan(gw.index({0, 0, 0, 0}).item<double>()));
}

// The weight gradient sums per-thread partial sums: the result must not depend
// on the thread count beyond rounding.
TEST(ConvSmallPath, ThreadCounts) {
  OneDnnSwitch on(true);
  manual_seed(23);
  Tensor x = randn({16, 1, 28, 28}), w = randn({32, 1, 3, 3}), gy = randn({16, 32, 28, 28});
  int saved = get_num_threads();
  set_num_threads(1);
  Tensor y1 = conv2d_relu(x, w, Tensor(), {1}, {1}), g1 = conv2d_weight_grad(x, gy, {32, 1, 3, 3}, {1}, {1});
  set_num_threads(2);
  Tensor y2 = conv2d_relu(x, w, Tensor(), {1}, {1}), g2 = conv2d_weight_grad(x, gy, {32, 1, 3, 3}, {1}, {1});
  set_num_threads(saved);
  EXPECT_EQ(max(abs(y1 - y2)).item<double>(), 0.0);  // each output is computed by one thread alike
  EXPECT_LT(max(abs(g1 - g2)).item<double>() / max(abs(g1)).item<double>(), 1e-5);
}

}  // namespace
}  // namespace nabla

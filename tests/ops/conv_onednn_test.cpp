// float32 convolutions run on oneDNN's convolution primitives; the im2col
// kernels (which the OpInfo suites gradcheck in float64) are the reference.
// Every case runs conv2d, conv_transpose2d and conv2d_weight_grad both ways
// and compares, over strides, padding, dilation, groups, non-contiguous
// inputs, batch 1, rectangular kernels and output sizes oneDNN only accepts
// with an adjusted right padding.
#include "nabla/kernels/cpu/conv_onednn.h"

#include <gtest/gtest.h>

#include <thread>

#include "nabla/kernels/cpu/conv.h"
#include "nabla/nabla.h"
#include "support/onednn_switch.h"

namespace nabla {
namespace {

using testing::expect_onednn_path_agrees;
using testing::OneDnnSwitch;

struct ConvCase {
  int64_t n, c, h, w, oc, kh, kw, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, groups;
  std::string name() const {
    return "N" + std::to_string(n) + " C" + std::to_string(c) + " " + std::to_string(h) + "x" + std::to_string(w) +
           " OC" + std::to_string(oc) + " k" + std::to_string(kh) + "x" + std::to_string(kw) + " s" +
           std::to_string(stride_h) + "," + std::to_string(stride_w) + " p" + std::to_string(pad_h) + "," +
           std::to_string(pad_w) + " d" + std::to_string(dil_h) + "," + std::to_string(dil_w) + " g" +
           std::to_string(groups);
  }
};

const ConvCase kCases[] = {
    {64, 1, 28, 28, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1},  // the CNN's first layer
    {8, 32, 14, 14, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1},  // the CNN's second layer (smaller batch)
    {1, 3, 9, 11, 5, 3, 3, 1, 1, 0, 0, 1, 1, 1},     // batch 1, no padding
    {2, 4, 10, 9, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1},     // stride 2
    {2, 3, 11, 10, 4, 2, 2, 2, 2, 0, 0, 1, 1, 1},    // stride leaves a remainder (negative right padding)
    {2, 3, 12, 13, 4, 3, 3, 1, 1, 2, 2, 2, 2, 1},    // dilation 2
    {2, 4, 8, 8, 6, 3, 3, 1, 1, 1, 1, 1, 1, 2},      // groups 2
    {2, 8, 9, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 8},      // depthwise
    {3, 5, 7, 12, 7, 1, 3, 1, 2, 0, 1, 1, 1, 1},     // rectangular kernel, per-axis stride and padding
    {2, 16, 6, 6, 24, 1, 1, 1, 1, 0, 0, 1, 1, 1},    // 1x1
    {2, 3, 15, 15, 4, 5, 5, 3, 3, 2, 2, 1, 1, 1},    // 5x5, stride 3
    {2, 6, 13, 11, 6, 3, 2, 2, 3, 1, 0, 2, 1, 3},    // everything at once
};

class ConvOneDnn : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvOneDnn, MatchesIm2col) {
  const ConvCase& k = GetParam();
  manual_seed(11);
  Tensor x = randn({k.n, k.c, k.h, k.w});
  Tensor w = randn({k.oc, k.c / k.groups, k.kh, k.kw});
  Tensor b = randn({k.oc});
  const Shape s{k.stride_h, k.stride_w}, p{k.pad_h, k.pad_w}, d{k.dil_h, k.dil_w};  // IntList would dangle
  Tensor y = conv2d(x, w, b, s, p, d, k.groups);
  Tensor gy = randn_like(y);
  Tensor bt = randn({k.c});
  std::string name = k.name();
  expect_onednn_path_agrees([&] { return conv2d(x, w, b, s, p, d, k.groups); }, "conv2d " + name);
  expect_onednn_path_agrees([&] { return conv2d(x, w, Tensor(), s, p, d, k.groups); }, "conv2d no bias " + name);
  // conv_transpose2d of gy is conv2d's input gradient; output_padding gets
  // back the rows a strided window skipped, so the result is x-sized.
  int64_t oph = k.h - ((y.size(2) - 1) * k.stride_h - 2 * k.pad_h + k.dil_h * (k.kh - 1) + 1);
  int64_t opw = k.w - ((y.size(3) - 1) * k.stride_w - 2 * k.pad_w + k.dil_w * (k.kw - 1) + 1);
  if (oph < std::max(k.stride_h, k.dil_h) && opw < std::max(k.stride_w, k.dil_w)) {
    expect_onednn_path_agrees(
        [&] {
          return conv_transpose2d(gy, w, Tensor(), s, p, {oph, opw}, k.groups, d);
        },
        "conv_transpose2d " + name);
    expect_onednn_path_agrees(
        [&] {
          return conv_transpose2d(gy, w, bt, s, p, {oph, opw}, k.groups, d);
        },
        "conv_transpose2d bias " + name);
  }
  expect_onednn_path_agrees([&] { return conv2d_weight_grad(x, gy, w.sizes(), s, p, d, k.groups); },
                     "conv2d_weight_grad " + name);
}

INSTANTIATE_TEST_SUITE_P(Shapes, ConvOneDnn, ::testing::ValuesIn(kCases));

TEST(ConvOneDnnPath, IsUsedForFloat32AndCachesPrimitives) {
  OneDnnSwitch on(true);
  manual_seed(1);
  Tensor x = randn({3, 5, 17, 19}), w = randn({7, 5, 3, 3});
  int64_t before = cpu::onednn_conv_cache_size();
  Tensor y = conv2d(x, w, Tensor(), {1}, {1});
  // A new geometry: new primitives (one per batch-slice size).
  int64_t after = cpu::onednn_conv_cache_size();
  EXPECT_GT(after, before);
  conv2d(x, w, Tensor(), {1}, {1});
  EXPECT_EQ(cpu::onednn_conv_cache_size(), after);  // the same one again: reused
  // float64 never goes to oneDNN.
  conv2d(x.to(kFloat64), w.to(kFloat64), Tensor(), {1}, {1});
  EXPECT_EQ(cpu::onednn_conv_cache_size(), after);
}

TEST(ConvOneDnnPath, NonContiguousOperands) {
  manual_seed(2);
  Tensor x = randn({4, 6, 10, 12}).transpose(2, 3);  // [4, 6, 12, 10], strided
  Tensor w = randn({6, 3, 3, 3, 2}).select(4, 1);    // [6, 3, 3, 3], strided
  Tensor b = randn({6, 2}).select(1, 0);
  ASSERT_FALSE(x.is_contiguous());
  ASSERT_FALSE(w.is_contiguous());
  expect_onednn_path_agrees([&] { return conv2d(x, w, b, {1}, {1}, {1}, 2); }, "strided conv2d");
  Tensor gy = randn({4, 6, 12, 10}).transpose(2, 3).contiguous().transpose(2, 3);
  ASSERT_FALSE(gy.is_contiguous());
  expect_onednn_path_agrees([&] { return conv_transpose2d(gy, w, Tensor(), {1}, {1}, {0}, 2); }, "strided conv_transpose2d");
  expect_onednn_path_agrees(
      [&] {
        return conv2d_weight_grad(x, gy, {6, 3, 3, 3}, {1}, {1}, {1}, 2);
      },
      "strided conv2d_weight_grad");
  // NHWC input: conv2d_nhwc is a strided view on the same kernels.
  Tensor xh = randn({2, 9, 9, 4}), wh = randn({6, 4, 3, 3});
  expect_onednn_path_agrees([&] { return conv2d_nhwc(xh, wh, Tensor(), {2}, {1}); }, "conv2d_nhwc");
}

// A grad_output smaller than the convolution's natural output (the weight
// gradient of conv_transpose2d with output_padding asks for this).
TEST(ConvOneDnnPath, WeightGradOfNarrowedGradOutput) {
  manual_seed(3);
  Tensor x = randn({2, 3, 12, 12});
  Tensor gy = randn({2, 4, 5, 6});  // natural output: 6x6 (k 3, stride 2, padding 1)
  expect_onednn_path_agrees([&] { return conv2d_weight_grad(x, gy, {4, 3, 3, 3}, {2}, {1}); }, "narrowed grad_output");
}

TEST(ConvOneDnnPath, Autograd) {
  manual_seed(4);
  Tensor x0 = randn({4, 3, 10, 10}), w0 = randn({8, 3, 3, 3}), b0 = randn({8});
  auto grads = [&] {
    Tensor x = x0.clone().requires_grad_(), w = w0.clone().requires_grad_(), b = b0.clone().requires_grad_();
    Tensor loss = sum(relu(conv2d(x, w, b, {2}, {1})) * 0.5);
    loss.backward();
    return std::vector<Tensor>{x.grad(), w.grad(), b.grad()};
  };
  std::vector<Tensor> ref, got;
  {
    OneDnnSwitch off(false);
    ref = grads();
  }
  {
    OneDnnSwitch on(true);
    got = grads();
  }
  for (size_t i = 0; i < ref.size(); ++i) EXPECT_LT(max(abs(ref[i] - got[i])).item<double>(), 1e-4) << i;
}

// oneDNN runs on OpenMP, whose thread count is per calling thread: the
// result must not depend on nabla's thread count or on which thread calls.
TEST(ConvOneDnnPath, ThreadCountsAndOtherThreads) {
  OneDnnSwitch on(true);
  manual_seed(5);
  Tensor x = randn({16, 8, 14, 14}), w = randn({16, 8, 3, 3});
  int saved = get_num_threads();
  set_num_threads(1);
  Tensor y1 = conv2d(x, w, Tensor(), {1}, {1});
  set_num_threads(2);
  Tensor y2 = conv2d(x, w, Tensor(), {1}, {1});
  Tensor y3;
  std::thread t([&] { y3 = conv2d(x, w, Tensor(), {1}, {1}); });
  t.join();
  set_num_threads(saved);
  EXPECT_LT(max(abs(y1 - y2)).item<double>(), 1e-4);
  EXPECT_LT(max(abs(y1 - y3)).item<double>(), 1e-4);
}

}  // namespace
}  // namespace nabla

// See mobilenet.h.
#include "nabla/zoo/mobilenet.h"

#include <algorithm>
#include <cmath>

#include "nabla/nn/activation.h"
#include "nabla/nn/batchnorm.h"
#include "nabla/nn/conv.h"
#include "nabla/nn/linear.h"
#include "nabla/ops/ops.h"
#include "nabla/zoo/check_options.h"
#include "nabla/zoo/init.h"

namespace nabla::zoo {

namespace {
// torchvision's Conv2dNormActivation with BatchNorm2d and ReLU6: a Sequential
// of conv (no bias, "same" padding), norm and activation, named 0, 1, 2.
std::shared_ptr<nn::Sequential> conv_bn_relu6(int64_t in, int64_t out, int64_t kernel, int64_t stride = 1,
                                              int64_t groups = 1) {
  return std::make_shared<nn::Sequential>(
      std::make_shared<nn::Conv2d>(in, out, kernel, stride, (kernel - 1) / 2, 1, groups, false),
      std::make_shared<nn::BatchNorm2d>(out), std::make_shared<nn::ReLU6>());
}

// torchvision's _make_divisible: v rounded to the nearest multiple of
// `divisor` (at least divisor), never more than 10% below v.
int64_t make_divisible(double v, int64_t divisor = 8) {
  int64_t rounded = std::max(divisor, static_cast<int64_t>(v + divisor / 2.0) / divisor * divisor);
  return rounded < 0.9 * v ? rounded + divisor : rounded;
}

struct Setting {
  int64_t t, c, n, s;  // expansion, output channels, repeats, first stride
};
constexpr Setting kSettings[] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                                 {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
}  // namespace

InvertedResidual::InvertedResidual(int64_t inp, int64_t oup, int64_t stride, int64_t expand_ratio)
    : use_res_connect(stride == 1 && inp == oup) {
  const int64_t hidden = inp * expand_ratio;  // torchvision: int(round(inp * expand_ratio)), an integer ratio here
  conv = register_module("conv", std::make_shared<nn::Sequential>());
  if (expand_ratio != 1) conv->push_back(conv_bn_relu6(inp, hidden, 1));
  conv->push_back(conv_bn_relu6(hidden, hidden, 3, stride, hidden));
  conv->push_back(nn::Conv2d(hidden, oup, 1, 1, 0, 1, 1, false));
  conv->push_back(nn::BatchNorm2d(oup));
}

Tensor InvertedResidual::forward(const Tensor& x) {
  Tensor out = conv->forward(x);
  return use_res_connect ? x + out : out;
}

MobileNetV2::MobileNetV2(const ModelOptions& options) {
  auto opt = detail::check_options("mobilenet_v2", options, 1000, 3, 0.2, true);
  const double width = options.width_mult;
  int64_t channels = make_divisible(32 * width);
  const int64_t last_channels = make_divisible(1280 * std::max(1.0, width));
  features = register_module("features", std::make_shared<nn::Sequential>());
  features->push_back(conv_bn_relu6(opt.in_channels, channels, 3, 2));
  for (const Setting& s : kSettings) {
    const int64_t out = make_divisible(s.c * width);
    for (int64_t i = 0; i < s.n; ++i) {
      features->push_back(std::make_shared<InvertedResidual>(channels, out, i == 0 ? s.s : 1, s.t));
      channels = out;
    }
  }
  features->push_back(conv_bn_relu6(channels, last_channels, 1));
  classifier = register_module("classifier", std::make_shared<nn::Sequential>());
  classifier->push_back(nn::Dropout(opt.dropout));
  classifier->push_back(nn::Linear(last_channels, opt.num_classes));
  detail::torchvision_init(*this, 0.01);
}

Tensor MobileNetV2::forward(const Tensor& x) {
  Tensor pooled = adaptive_avg_pool2d(features->forward(x), {1, 1});
  return classifier->forward(pooled.flatten(1));
}

std::shared_ptr<MobileNetV2> mobilenet_v2(const ModelOptions& options) {
  return std::make_shared<MobileNetV2>(options);
}

}  // namespace nabla::zoo

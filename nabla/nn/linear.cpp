// Linear and Conv2d.
#include "nabla/nn/linear.h"

#include <cmath>

#include "nabla/nn/init.h"
#include "nabla/ops/ops.h"

namespace nabla::nn {

// PyTorch's reset_parameters of Linear and Conv*d.
static void default_init(const Tensor& weight, const Tensor& bias) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    double b = 1.0 / std::sqrt(static_cast<double>(init::calculate_fan_in_and_fan_out(weight).first));
    init::uniform_(bias, -b, b);
  }
}

Linear::Linear(int64_t in, int64_t out, bool has_bias) : in_features(in), out_features(out) {
  NABLA_CHECK(in > 0 && out > 0, "nn::Linear: in_features and out_features must be positive, got ", in, " and ", out);
  weight = register_parameter("weight", empty({out, in}));
  if (has_bias) bias = register_parameter("bias", empty({out}));
  reset_parameters();
}

void Linear::reset_parameters() { default_init(weight, bias); }

Tensor Linear::forward(const Tensor& x) { return linear(x, weight, bias); }

std::string Linear::extra_repr() const {
  return detail::concat("in_features=", in_features, ", out_features=", out_features,
                        ", bias=", bias.defined() ? "true" : "false");
}

Conv2d::Conv2d(int64_t in, int64_t out, int64_t k, int64_t s, int64_t p, int64_t d, int64_t g, bool has_bias)
    : in_channels(in), out_channels(out), kernel_size(k), stride(s), padding(p), dilation(d), groups(g) {
  NABLA_CHECK(in > 0 && out > 0 && k > 0 && g > 0 && in % g == 0 && out % g == 0,
              "nn::Conv2d: need positive channels and kernel_size, and groups dividing both channel counts; got in=",
              in, " out=", out, " kernel_size=", k, " groups=", g);
  weight = register_parameter("weight", empty({out, in / g, k, k}));
  if (has_bias) bias = register_parameter("bias", empty({out}));
  reset_parameters();
}

void Conv2d::reset_parameters() { default_init(weight, bias); }

Tensor Conv2d::forward(const Tensor& x) {
  return conv2d(x, weight, bias, {stride, stride}, {padding, padding}, {dilation, dilation}, groups);
}

std::string Conv2d::extra_repr() const {
  std::string s = detail::concat(in_channels, ", ", out_channels, ", kernel_size=(", kernel_size, ", ", kernel_size,
                                 "), stride=(", stride, ", ", stride, ")");
  if (padding) s += detail::concat(", padding=(", padding, ", ", padding, ")");
  if (dilation != 1) s += detail::concat(", dilation=(", dilation, ", ", dilation, ")");
  if (groups != 1) s += detail::concat(", groups=", groups);
  if (!bias.defined()) s += ", bias=false";
  return s;
}

}  // namespace nabla::nn

// MaxPool2d, AvgPool2d, AdaptiveAvgPool2d. The ops check input shapes and the
// padding limits; the constructors check what can be checked without input.
#include "nabla/nn/pooling.h"

#include "nabla/nn/data_format.h"
#include "nabla/ops/ops.h"

namespace nabla::nn {

static void check_window(const char* api, const Size2& k, const Size2& s, const Size2& p) {
  NABLA_CHECK(k.positive() && s.positive() && p.non_negative(), api,
              ": need kernel_size and stride > 0 and padding >= 0; got kernel_size=", k.str(), " stride=", s.str(),
              " padding=", p.str());
  for (std::size_t i = 0; i < 2; ++i)
    NABLA_CHECK(2 * p[i] <= k[i], api, ": padding ", p.str(), " must be at most half of kernel_size ", k.str());
}

MaxPool2d::MaxPool2d(Size2 k, std::optional<Size2> s, Size2 p, Size2 d, bool ceil, const std::string& format)
    : kernel_size(k),
      stride(s.value_or(k)),
      padding(p),
      dilation(d),
      ceil_mode(ceil),
      data_format(checked_data_format(format, "nn::MaxPool2d")) {
  check_window("nn::MaxPool2d", kernel_size, stride, padding);
  NABLA_CHECK(d.positive(), "nn::MaxPool2d: dilation must be positive, got ", d.str());
}

Tensor MaxPool2d::forward(const Tensor& x) {
  if (data_format == "NHWC")
    return nhwc_view_of_nchw(max_pool2d(nchw_view_of_nhwc(x, "nn::MaxPool2d"), kernel_size.list(), stride.list(),
                                        padding.list(), dilation.list(), ceil_mode));
  return max_pool2d(x, kernel_size.list(), stride.list(), padding.list(), dilation.list(), ceil_mode);
}

// PyTorch prints a pool's int arguments as given; nabla prints one int when
// both dims agree, else the pair.
static std::string arg(const Size2& s) { return s[0] == s[1] ? std::to_string(s[0]) : s.str(); }
static const char* boolean(bool b) { return b ? "true" : "false"; }

std::string MaxPool2d::extra_repr() const {
  return detail::concat("kernel_size=", arg(kernel_size), ", stride=", arg(stride), ", padding=", arg(padding),
                        ", dilation=", arg(dilation), ", ceil_mode=", boolean(ceil_mode),
                        data_format == "NHWC" ? ", data_format=NHWC" : "");
}

AvgPool2d::AvgPool2d(Size2 k, std::optional<Size2> s, Size2 p, bool ceil, bool include_pad,
                     std::optional<int64_t> divisor, const std::string& format)
    : kernel_size(k),
      stride(s.value_or(k)),
      padding(p),
      ceil_mode(ceil),
      count_include_pad(include_pad),
      divisor_override(divisor),
      data_format(checked_data_format(format, "nn::AvgPool2d")) {
  check_window("nn::AvgPool2d", kernel_size, stride, padding);
  NABLA_CHECK(!divisor || *divisor > 0, "nn::AvgPool2d: divisor_override must be positive, got ", divisor.value_or(0));
}

Tensor AvgPool2d::forward(const Tensor& x) {
  if (data_format == "NHWC")
    return nhwc_view_of_nchw(avg_pool2d(nchw_view_of_nhwc(x, "nn::AvgPool2d"), kernel_size.list(), stride.list(),
                                        padding.list(), ceil_mode, count_include_pad, divisor_override.value_or(0)));
  return avg_pool2d(x, kernel_size.list(), stride.list(), padding.list(), ceil_mode, count_include_pad,
                    divisor_override.value_or(0));
}

std::string AvgPool2d::extra_repr() const {
  return detail::concat("kernel_size=", arg(kernel_size), ", stride=", arg(stride), ", padding=", arg(padding),
                        data_format == "NHWC" ? ", data_format=NHWC" : "");
}

AdaptiveAvgPool2d::AdaptiveAvgPool2d(Size2 out, const std::string& format)
    : output_size(out), data_format(checked_data_format(format, "nn::AdaptiveAvgPool2d")) {
  NABLA_CHECK(out.positive(), "nn::AdaptiveAvgPool2d: output_size must be positive, got ", out.str());
}

Tensor AdaptiveAvgPool2d::forward(const Tensor& x) {
  if (data_format == "NHWC")
    return nhwc_view_of_nchw(adaptive_avg_pool2d(nchw_view_of_nhwc(x, "nn::AdaptiveAvgPool2d"), output_size.list()));
  return adaptive_avg_pool2d(x, output_size.list());
}

std::string AdaptiveAvgPool2d::extra_repr() const {
  return "output_size=" + arg(output_size) + (data_format == "NHWC" ? ", data_format=NHWC" : "");
}

}  // namespace nabla::nn

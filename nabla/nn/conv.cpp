// Conv1d, Conv2d and ConvTranspose2d over the conv ops.
#include "nabla/nn/conv.h"

#include "nabla/nn/data_format.h"
#include "nabla/nn/init.h"
#include "nabla/ops/ops.h"

namespace nabla::nn {

static void check_channels(const char* api, int64_t in, int64_t out, int64_t groups) {
  NABLA_CHECK(in > 0 && out > 0 && groups > 0 && in % groups == 0 && out % groups == 0, api,
              ": need positive channel counts and groups dividing both; got in_channels=", in, " out_channels=", out,
              " groups=", groups);
}

// The optional parts of a conv's printed form, as PyTorch's _ConvNd.extra_repr.
static std::string conv_tail(const std::string& padding, bool pad, const std::string& dilation, bool dil,
                             int64_t groups, bool has_bias) {
  std::string s;
  if (pad) s += ", padding=" + padding;
  if (dil) s += ", dilation=" + dilation;
  if (groups != 1) s += detail::concat(", groups=", groups);
  if (!has_bias) s += ", bias=false";
  return s;
}

Conv1d::Conv1d(int64_t in, int64_t out, int64_t k, int64_t s, int64_t p, int64_t d, int64_t g, bool has_bias)
    : in_channels(in), out_channels(out), kernel_size(k), stride(s), padding(p), dilation(d), groups(g) {
  check_channels("nn::Conv1d", in, out, g);
  NABLA_CHECK(k > 0 && s > 0 && d > 0 && p >= 0,
              "nn::Conv1d: need kernel_size, stride, dilation > 0 and padding >= 0; got kernel_size=", k, " stride=", s,
              " padding=", p, " dilation=", d);
  weight = register_parameter("weight", empty({out, in / g, k}));
  if (has_bias) bias = register_parameter("bias", empty({out}));
  reset_parameters();
}

void Conv1d::reset_parameters() { init::default_layer_init_(weight, bias); }

Tensor Conv1d::forward(const Tensor& x) { return conv1d(x, weight, bias, {stride}, {padding}, {dilation}, groups); }

std::string Conv1d::extra_repr() const {
  auto one = [](int64_t v) { return detail::concat('(', v, ",)"); };
  return detail::concat(in_channels, ", ", out_channels, ", kernel_size=", one(kernel_size), ", stride=", one(stride)) +
         conv_tail(one(padding), padding != 0, one(dilation), dilation != 1, groups, bias.defined());
}

Conv2d::Conv2d(int64_t in, int64_t out, Size2 k, Size2 s, Size2 p, Size2 d, int64_t g, bool has_bias,
               const std::string& format)
    : in_channels(in),
      out_channels(out),
      kernel_size(k),
      stride(s),
      padding(p),
      dilation(d),
      groups(g),
      data_format(checked_data_format(format, "nn::Conv2d")) {
  check_channels("nn::Conv2d", in, out, g);
  NABLA_CHECK(k.positive() && s.positive() && d.positive() && p.non_negative(),
              "nn::Conv2d: need kernel_size, stride, dilation > 0 and padding >= 0; got kernel_size=", k.str(),
              " stride=", s.str(), " padding=", p.str(), " dilation=", d.str());
  weight = register_parameter("weight", empty({out, in / g, k[0], k[1]}));
  if (has_bias) bias = register_parameter("bias", empty({out}));
  reset_parameters();
}

void Conv2d::reset_parameters() { init::default_layer_init_(weight, bias); }

Tensor Conv2d::forward(const Tensor& x) {
  if (data_format == "NHWC")
    return nhwc_view_of_nchw(conv2d(nchw_view_of_nhwc(x, "nn::Conv2d"), weight, bias, stride.list(), padding.list(),
                                    dilation.list(), groups));
  return conv2d(x, weight, bias, stride.list(), padding.list(), dilation.list(), groups);
}

std::string Conv2d::extra_repr() const {
  return detail::concat(in_channels, ", ", out_channels, ", kernel_size=", kernel_size.str(),
                        ", stride=", stride.str()) +
         conv_tail(padding.str(), !padding.all(0), dilation.str(), !dilation.all(1), groups, bias.defined()) +
         (data_format == "NHWC" ? ", data_format=NHWC" : "");
}

ConvTranspose2d::ConvTranspose2d(int64_t in, int64_t out, Size2 k, Size2 s, Size2 p, Size2 op, int64_t g, bool has_bias,
                                 Size2 d)
    : in_channels(in),
      out_channels(out),
      kernel_size(k),
      stride(s),
      padding(p),
      output_padding(op),
      groups(g),
      dilation(d) {
  check_channels("nn::ConvTranspose2d", in, out, g);
  NABLA_CHECK(k.positive() && s.positive() && d.positive() && p.non_negative() && op.non_negative(),
              "nn::ConvTranspose2d: need kernel_size, stride, dilation > 0 and padding, output_padding >= 0; got "
              "kernel_size=",
              k.str(), " stride=", s.str(), " padding=", p.str(), " output_padding=", op.str(), " dilation=", d.str());
  for (std::size_t i = 0; i < 2; ++i)
    NABLA_CHECK(op[i] < s[i] || op[i] < d[i], "nn::ConvTranspose2d: output_padding ", op.str(),
                " must be smaller than either stride ", s.str(), " or dilation ", d.str());
  weight = register_parameter("weight", empty({in, out / g, k[0], k[1]}));
  if (has_bias) bias = register_parameter("bias", empty({out}));
  reset_parameters();
}

void ConvTranspose2d::reset_parameters() { init::default_layer_init_(weight, bias); }

Tensor ConvTranspose2d::forward(const Tensor& x) {
  return conv_transpose2d(x, weight, bias, stride.list(), padding.list(), output_padding.list(), groups,
                          dilation.list());
}

std::string ConvTranspose2d::extra_repr() const {
  std::string s =
      detail::concat(in_channels, ", ", out_channels, ", kernel_size=", kernel_size.str(), ", stride=", stride.str());
  if (!padding.all(0)) s += ", padding=" + padding.str();
  if (!dilation.all(1)) s += ", dilation=" + dilation.str();
  if (!output_padding.all(0)) s += ", output_padding=" + output_padding.str();
  if (groups != 1) s += detail::concat(", groups=", groups);
  if (!bias.defined()) s += ", bias=false";
  return s;
}

}  // namespace nabla::nn

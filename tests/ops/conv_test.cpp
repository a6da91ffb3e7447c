// OpInfo entries for the convolution ops (conv1d, conv2d, conv2d_nhwc,
// conv_transpose2d, conv2d_weight_grad). The references are direct
// convolutions: nested loops over every output (or input) position and every
// kernel tap on host values — deliberately not im2col, so they share no code
// or idea with the kernels under test. One entry per configuration (stride,
// padding, dilation, groups, bias, odd sizes), since attrs live in `run`.
// Sizes stay small: gradgradcheck differentiates numerically per element.
#include <array>

#include "support/op_info.h"

namespace nabla::testing {
namespace {

// Host values of a 4-D tensor with any logical axis order: at(n, c, h, w)
// reads through `perm` (perm[i] = the stored axis holding logical axis i).
struct Host4 {
  std::vector<double> v;
  Shape stored;
  std::array<int, 4> perm{0, 1, 2, 3};
  Host4(const Tensor& t, std::array<int, 4> p = {0, 1, 2, 3}) : v(values(t)), stored(t.sizes()), perm(p) {}
  int64_t size(int i) const { return stored[perm[i]]; }
  double at(int64_t n, int64_t c, int64_t h, int64_t w) const {
    int64_t idx[4];
    idx[perm[0]] = n, idx[perm[1]] = c, idx[perm[2]] = h, idx[perm[3]] = w;
    return v[ravel({idx[0], idx[1], idx[2], idx[3]}, stored)];
  }
};

struct Conv {
  std::vector<int64_t> stride{1, 1}, padding{0, 0}, dilation{1, 1};
  int64_t groups = 1;
  std::vector<int64_t> output_padding{0, 0};  // conv_transpose2d only
};

// y[n, oc, oh, ow] = b[oc] + sum_{cg, ki, kj} x[n, g*Cg + cg, oh*s - p + ki*d, ...] * w[oc, cg, ki, kj]
Tensor ref_conv2d(const Host4& x, const Tensor& wt, const Tensor& bias, const Conv& c) {
  Host4 w(wt);
  int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  int64_t OC = w.size(0), Cg = C / c.groups, OCg = OC / c.groups, KH = w.size(2), KW = w.size(3);
  int64_t OH = (H + 2 * c.padding[0] - c.dilation[0] * (KH - 1) - 1) / c.stride[0] + 1;
  int64_t OW = (W + 2 * c.padding[1] - c.dilation[1] * (KW - 1) - 1) / c.stride[1] + 1;
  std::vector<double> b = bias.defined() ? values(bias) : std::vector<double>(OC, 0.0);
  std::vector<double> out;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oc = 0; oc < OC; ++oc)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double acc = b[oc];
          int64_t g = oc / OCg;
          for (int64_t cg = 0; cg < Cg; ++cg)
            for (int64_t ki = 0; ki < KH; ++ki)
              for (int64_t kj = 0; kj < KW; ++kj) {
                int64_t ih = oh * c.stride[0] - c.padding[0] + ki * c.dilation[0];
                int64_t iw = ow * c.stride[1] - c.padding[1] + kj * c.dilation[1];
                if (ih >= 0 && ih < H && iw >= 0 && iw < W) acc += x.at(n, g * Cg + cg, ih, iw) * w.at(oc, cg, ki, kj);
              }
          out.push_back(acc);
        }
  return from_values(out, {N, OC, OH, OW});
}

// Scatter form: every input element adds x * w into the outputs its taps reach.
Tensor ref_conv_transpose2d(const Tensor& xt, const Tensor& wt, const Tensor& bias, const Conv& c) {
  Host4 x(xt), w(wt);
  int64_t N = x.size(0), Cin = x.size(1), H = x.size(2), W = x.size(3);
  int64_t OCg = w.size(1), KH = w.size(2), KW = w.size(3), Cg = Cin / c.groups, OC = OCg * c.groups;
  int64_t OH = (H - 1) * c.stride[0] - 2 * c.padding[0] + c.dilation[0] * (KH - 1) + c.output_padding[0] + 1;
  int64_t OW = (W - 1) * c.stride[1] - 2 * c.padding[1] + c.dilation[1] * (KW - 1) + c.output_padding[1] + 1;
  Shape os{N, OC, OH, OW};
  std::vector<double> b = bias.defined() ? values(bias) : std::vector<double>(OC, 0.0);
  std::vector<double> out(static_cast<std::size_t>(N * OC * OH * OW));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = b[unravel(static_cast<int64_t>(i), os)[1]];
  for (int64_t n = 0; n < N; ++n)
    for (int64_t ic = 0; ic < Cin; ++ic)
      for (int64_t ih = 0; ih < H; ++ih)
        for (int64_t iw = 0; iw < W; ++iw)
          for (int64_t ocg = 0; ocg < OCg; ++ocg)
            for (int64_t ki = 0; ki < KH; ++ki)
              for (int64_t kj = 0; kj < KW; ++kj) {
                int64_t oh = ih * c.stride[0] - c.padding[0] + ki * c.dilation[0];
                int64_t ow = iw * c.stride[1] - c.padding[1] + kj * c.dilation[1];
                if (oh < 0 || oh >= OH || ow < 0 || ow >= OW) continue;
                out[ravel({n, (ic / Cg) * OCg + ocg, oh, ow}, os)] += x.at(n, ic, ih, iw) * w.at(ic, ocg, ki, kj);
              }
  return from_values(out, os);
}

// gw[oc, cg, ki, kj] = sum_{n, oh, ow} gy[n, oc, oh, ow] * x[n, g*Cg + cg, oh*s - p + ki*d, ...]
Tensor ref_weight_grad(const Tensor& xt, const Tensor& gyt, const Shape& ws, const Conv& c) {
  Host4 x(xt), gy(gyt);
  int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  int64_t OC = ws[0], Cg = ws[1], KH = ws[2], KW = ws[3], OCg = OC / c.groups;
  std::vector<double> out;
  for (int64_t oc = 0; oc < OC; ++oc)
    for (int64_t cg = 0; cg < Cg; ++cg)
      for (int64_t ki = 0; ki < KH; ++ki)
        for (int64_t kj = 0; kj < KW; ++kj) {
          double acc = 0;
          int64_t ch = (oc / OCg) * Cg + cg;
          for (int64_t n = 0; n < N; ++n)
            for (int64_t oh = 0; oh < gy.size(2); ++oh)
              for (int64_t ow = 0; ow < gy.size(3); ++ow) {
                int64_t ih = oh * c.stride[0] - c.padding[0] + ki * c.dilation[0];
                int64_t iw = ow * c.stride[1] - c.padding[1] + kj * c.dilation[1];
                if (ih >= 0 && ih < H && iw >= 0 && iw < W) acc += gy.at(n, oc, oh, ow) * x.at(n, ch, ih, iw);
              }
          out.push_back(acc);
        }
  (void)C;
  return from_values(out, ws);
}

// Samples: x, w and (when `bias`) b, drawn with distinct seeds.
std::function<std::vector<Tensors>()> conv_samples(Shape xs, Shape ws, bool bias, int64_t bias_size) {
  return [=] {
    Tensors s{sample(xs, -2, 2, 11), sample(ws, -1, 1, 12)};
    if (bias) s.push_back(sample({bias_size}, -1, 1, 13));
    return std::vector<Tensors>{s};
  };
}
Tensor bias_of(const Tensors& in) { return in.size() > 2 ? in[2] : Tensor(); }

OpInfo conv2d_info(const std::string& name, Shape xs, Shape ws, bool bias, Conv c) {
  OpInfo info;
  info.name = name;
  info.covers = {"conv2d"};
  info.run = [c](const Tensors& in) {
    return Tensors{conv2d(in[0], in[1], bias_of(in), c.stride, c.padding, c.dilation, c.groups)};
  };
  info.samples = conv_samples(xs, ws, bias, ws[0]);
  info.reference = [c](const Tensors& in) {
    if (in[0].dim() == 3) {  // unbatched: the reference on a batch of one
      Tensor x = from_values(values(in[0]), {1, in[0].sizes()[0], in[0].sizes()[1], in[0].sizes()[2]});
      Tensor y = ref_conv2d(Host4(x), in[1], bias_of(in), c);
      return Tensors{from_values(values(y), {y.sizes()[1], y.sizes()[2], y.sizes()[3]})};
    }
    return Tensors{ref_conv2d(Host4(in[0]), in[1], bias_of(in), c)};
  };
  return info;
}

NABLA_OP_INFO(conv2d_info("conv2d", {2, 3, 5, 5}, {4, 3, 3, 3}, true, {}));
NABLA_OP_INFO(conv2d_info("conv2d_stride2_pad1", {2, 2, 6, 5}, {3, 2, 3, 3}, true, {.stride = {2, 2}, .padding = {1, 1}}));
NABLA_OP_INFO(conv2d_info("conv2d_dilation2_nobias", {2, 2, 6, 6}, {2, 2, 2, 3}, false,
                          {.padding = {1, 0}, .dilation = {2, 2}}));
NABLA_OP_INFO(conv2d_info("conv2d_groups2", {2, 4, 5, 5}, {4, 2, 3, 3}, true,
                          {.stride = {2, 1}, .padding = {1, 1}, .groups = 2}));
NABLA_OP_INFO(conv2d_info("conv2d_depthwise_odd", {1, 3, 7, 5}, {3, 1, 3, 2}, false,
                          {.stride = {2, 3}, .padding = {0, 1}, .dilation = {1, 2}, .groups = 3}));
NABLA_OP_INFO(conv2d_info("conv2d_1x1_stride2", {2, 3, 5, 4}, {2, 3, 1, 1}, true, {.stride = {2, 2}}));
NABLA_OP_INFO(conv2d_info("conv2d_unbatched", {3, 5, 4}, {2, 3, 2, 2}, true, {.padding = {1, 1}}));

// conv2d_relu: relu of the conv2d reference (float32 forward: oneDNN's ReLU post-op).
OpInfo conv2d_relu_info(const std::string& name, Shape xs, Shape ws, bool bias, Conv c) {
  OpInfo info = conv2d_info(name, xs, ws, bias, c);
  info.covers = {"conv2d_relu"};
  info.run = [c](const Tensors& in) {
    return Tensors{conv2d_relu(in[0], in[1], bias_of(in), c.stride, c.padding, c.dilation, c.groups)};
  };
  auto conv_ref = info.reference;
  info.reference = [conv_ref](const Tensors& in) {
    return Tensors{ref_unary(conv_ref(in)[0], [](double v) { return v > 0 ? v : 0.0; })};
  };
  return info;
}
NABLA_OP_INFO(conv2d_relu_info("conv2d_relu", {2, 3, 5, 5}, {4, 3, 3, 3}, true, {.padding = {1, 1}}));
NABLA_OP_INFO(conv2d_relu_info("conv2d_relu_stride2_groups2_nobias", {1, 4, 6, 5}, {4, 2, 3, 3}, false,
                               {.stride = {2, 2}, .groups = 2}));

// conv2d_nhwc: input [N, H, W, C], output [N, OH, OW, OC].
OpInfo conv2d_nhwc_info() {
  Conv c{.stride = {2, 1}, .padding = {1, 1}};
  OpInfo info;
  info.name = "conv2d_nhwc";
  info.covers = {"conv2d"};
  info.run = [c](const Tensors& in) {
    return Tensors{conv2d_nhwc(in[0], in[1], in[2], c.stride, c.padding, c.dilation, c.groups)};
  };
  info.samples = conv_samples({2, 5, 4, 3}, {4, 3, 3, 3}, true, 4);
  info.reference = [c](const Tensors& in) {
    Tensor y = ref_conv2d(Host4(in[0], {0, 3, 1, 2}), in[1], in[2], c);  // logical n,c,h,w in stored n,h,w,c
    Host4 yh(y);
    std::vector<double> out;
    for (int64_t n = 0; n < yh.size(0); ++n)
      for (int64_t h = 0; h < yh.size(2); ++h)
        for (int64_t w = 0; w < yh.size(3); ++w)
          for (int64_t ch = 0; ch < yh.size(1); ++ch) out.push_back(yh.at(n, ch, h, w));
    return Tensors{from_values(out, {yh.size(0), yh.size(2), yh.size(3), yh.size(1)})};
  };
  return info;
}
NABLA_OP_INFO(conv2d_nhwc_info());

// conv1d through the conv2d reference with H = 1.
OpInfo conv1d_info(const std::string& name, Shape xs, Shape ws, bool bias, int64_t s, int64_t p, int64_t d,
                   int64_t groups) {
  OpInfo info;
  info.name = name;
  info.covers = {"conv2d"};
  info.run = [=](const Tensors& in) { return Tensors{conv1d(in[0], in[1], bias_of(in), {s}, {p}, {d}, groups)}; };
  info.samples = conv_samples(xs, ws, bias, ws[0]);
  info.reference = [=](const Tensors& in) {
    bool unbatched = in[0].dim() == 2;
    Shape xs3 = in[0].sizes();
    if (unbatched) xs3.insert(xs3.begin(), 1);
    Shape x4{xs3[0], xs3[1], 1, xs3[2]};
    Shape w4{in[1].sizes()[0], in[1].sizes()[1], 1, in[1].sizes()[2]};
    Tensor y = ref_conv2d(Host4(from_values(values(in[0]), x4)), from_values(values(in[1]), w4), bias_of(in),
                          {.stride = {1, s}, .padding = {0, p}, .dilation = {1, d}, .groups = groups});
    Shape ys{y.sizes()[0], y.sizes()[1], y.sizes()[3]};
    if (unbatched) ys.erase(ys.begin());
    return Tensors{from_values(values(y), ys)};
  };
  return info;
}
NABLA_OP_INFO(conv1d_info("conv1d", {2, 3, 7}, {4, 3, 3}, true, 2, 1, 1, 1));
NABLA_OP_INFO(conv1d_info("conv1d_dilation2_groups2", {2, 4, 9}, {4, 2, 3}, false, 1, 0, 2, 2));
NABLA_OP_INFO(conv1d_info("conv1d_unbatched", {3, 8}, {2, 3, 2}, true, 3, 2, 1, 1));

OpInfo conv_transpose2d_info(const std::string& name, Shape xs, Shape ws, bool bias, Conv c) {
  OpInfo info;
  info.name = name;
  info.covers = {"conv_transpose2d"};
  info.run = [c](const Tensors& in) {
    return Tensors{conv_transpose2d(in[0], in[1], bias_of(in), c.stride, c.padding, c.output_padding, c.groups,
                                    c.dilation)};
  };
  info.samples = conv_samples(xs, ws, bias, ws[1] * c.groups);
  info.reference = [c](const Tensors& in) { return Tensors{ref_conv_transpose2d(in[0], in[1], bias_of(in), c)}; };
  return info;
}
NABLA_OP_INFO(conv_transpose2d_info("conv_transpose2d", {2, 3, 4, 4}, {3, 2, 3, 3}, true, {}));
NABLA_OP_INFO(conv_transpose2d_info("conv_transpose2d_stride2_pad1_outpad1", {2, 2, 3, 4}, {2, 3, 3, 3}, true,
                                    {.stride = {2, 2}, .padding = {1, 1}, .output_padding = {1, 1}}));
NABLA_OP_INFO(conv_transpose2d_info("conv_transpose2d_groups2_dilation2", {2, 4, 3, 3}, {4, 1, 2, 2}, false,
                                    {.stride = {1, 2}, .dilation = {2, 2}, .groups = 2}));
// output_padding >= stride (allowed because < dilation): rows no tap reaches.
NABLA_OP_INFO(conv_transpose2d_info("conv_transpose2d_outpad_ge_stride", {2, 2, 3, 3}, {2, 2, 2, 2}, true,
                                    {.padding = {1, 0}, .dilation = {3, 2}, .output_padding = {2, 1}}));

OpInfo weight_grad_info(const std::string& name, Shape xs, Shape gys, Shape ws, Conv c) {
  OpInfo info;
  info.name = name;
  info.covers = {"conv2d_weight_grad"};
  info.run = [=](const Tensors& in) {
    return Tensors{conv2d_weight_grad(in[0], in[1], ws, c.stride, c.padding, c.dilation, c.groups)};
  };
  info.samples = [=] { return std::vector<Tensors>{{sample(xs, -2, 2, 21), sample(gys, -1, 1, 22)}}; };
  info.reference = [=](const Tensors& in) { return Tensors{ref_weight_grad(in[0], in[1], ws, c)}; };
  return info;
}
NABLA_OP_INFO(weight_grad_info("conv2d_weight_grad", {2, 3, 5, 5}, {2, 4, 3, 3}, {4, 3, 3, 3}, {}));
NABLA_OP_INFO(weight_grad_info("conv2d_weight_grad_groups2_stride2", {2, 4, 6, 5}, {2, 4, 3, 3}, {4, 2, 3, 3},
                               {.stride = {2, 2}, .padding = {1, 1}, .groups = 2}));
// grad_output smaller than the natural 5x5 output: missing positions are zero.
NABLA_OP_INFO(weight_grad_info("conv2d_weight_grad_short_grad", {2, 2, 6, 6}, {2, 3, 3, 2}, {3, 2, 2, 2},
                               {.dilation = {1, 1}}));

}  // namespace
}  // namespace nabla::testing

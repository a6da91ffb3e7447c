// Convolution ops: conv2d, conv_transpose2d and conv2d_weight_grad are table
// entries (the CPU's im2col+GEMM kernels: nabla/kernels/cpu/conv_ops.cpp); conv1d and
// conv2d_nhwc are wrappers over conv2d.
//
// The three entries are closed under differentiation, so every gradient is
// differentiable again (gradgradcheck):
//   y = conv2d(x, w):            dx = conv_transpose2d(gy, w)   dw = conv2d_weight_grad(x, gy)
//   y = conv_transpose2d(x, w):  dx = conv2d(gy, w)             dw = conv2d_weight_grad(gy, x)
//   y = conv2d_weight_grad(x, g): dx = conv_transpose2d(g, gy)  dg = conv2d(x, gy)
// conv_transpose2d is the adjoint of conv2d in its input, and
// <conv2d_weight_grad(x, g), v> = <g, conv2d(x, v)> defines the third op.
// When a rule's result comes out larger than the input it belongs to (rows no
// window reaches: output_padding >= stride, or an output gradient smaller than
// the natural output), it is narrowed back.
#include "nabla/core/memory_format.h"
#include "nabla/core/user_op.h"
#include "nabla/ops/conv.h"
#include "nabla/ops/conv_geometry.h"
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/ops.h"
#include "nabla/ops/window_arith.h"

namespace nabla {

extern const OpDef conv2d_op, conv2d_relu_op, conv_transpose2d_op, conv2d_weight_grad_op;

namespace {

// ---- validation ---------------------------------------------------------

void check_floating(std::string_view op, Inputs in) {
  for (const Tensor& t : in)
    NABLA_CHECK(is_floating(t.dtype()), op, ": expected floating-point tensors, got dtype ", t.dtype(),
                " (shape ", t.sizes(), "); convert with .to(kFloat32)");
}

// stride/dilation > 0, padding (and output_padding) >= 0, groups >= 1.
void check_hyper(std::string_view op, const Shape& stride, const Shape& padding, const Shape& dilation,
                 int64_t groups) {
  NABLA_CHECK(stride.size() == 2 && stride[0] > 0 && stride[1] > 0, op, ": stride must be positive, got ", stride);
  NABLA_CHECK(padding.size() == 2 && padding[0] >= 0 && padding[1] >= 0, op, ": padding must be non-negative, got ",
              padding);
  NABLA_CHECK(dilation.size() == 2 && dilation[0] > 0 && dilation[1] > 0, op, ": dilation must be positive, got ",
              dilation);
  NABLA_CHECK(groups >= 1, op, ": groups must be positive, got ", groups);
}

void check_4d(std::string_view op, const char* what, const Shape& sizes, const char* layout) {
  NABLA_CHECK(sizes.size() == 4, op, ": expected a 4-D ", what, " ", layout, ", got shape ", sizes);
}

using detail::WideInt;

// The natural output size of a convolution along one axis (may be <= 0), in
// 128 bits: huge strides, pads and dilations from a file cannot overflow.
int64_t conv_out_size(std::string_view op, int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
  WideInt span = WideInt(in) + 2 * WideInt(p) - WideInt(d) * (k - 1) - 1;
  WideInt out = span / s + 1;
  if (out < 0) out = 0;  // the kernel does not fit (set_window has refused it)
  return detail::narrow_size(out, op, "the output size");
}

// Fills kernel/stride/padding/dilation/groups and checks that the dilated
// kernel fits the padded input.
void set_window(std::string_view op, Conv2dGeometry& g, int64_t kh, int64_t kw, const Shape& s, const Shape& p,
                const Shape& d, int64_t groups, const Shape& input_sizes) {
  g.kernel_h = kh, g.kernel_w = kw;
  g.stride_h = s[0], g.stride_w = s[1];
  g.pad_h = p[0], g.pad_w = p[1];
  g.dilation_h = d[0], g.dilation_w = d[1];
  g.groups = groups;
  WideInt eh = WideInt(d[0]) * (kh - 1) + 1, ew = WideInt(d[1]) * (kw - 1) + 1;
  WideInt ph = g.in_h + 2 * WideInt(p[0]), pw = g.in_w + 2 * WideInt(p[1]);
  NABLA_CHECK(eh <= ph && ew <= pw, op, ": the kernel ", kh, "x", kw, " (dilation ", d, ", so ",
              detail::wide_text(eh), "x", detail::wide_text(ew), ") is larger than the padded input ",
              detail::wide_text(ph), "x", detail::wide_text(pw), " (input shape ", input_sizes, ", padding ", p,
              "); expected a kernel no larger than the padded input");
}

}  // namespace

// attrs: stride, padding, dilation, groups
Conv2dGeometry conv2d_geometry(std::string_view op, const Tensor& x, const Shape& ws, const Attrs& a) {
  const Shape &s = a.ints(0), &p = a.ints(1), &d = a.ints(2);
  int64_t groups = a.i(3);
  check_hyper(op, s, p, d, groups);
  check_4d(op, "input", x.sizes(), "[N, C, H, W] (or 3-D [C, H, W] unbatched)");
  check_4d(op, "weight", ws, "[out_channels, in_channels / groups, KH, KW]");
  int64_t C = x.sizes()[1], OC = ws[0];
  NABLA_CHECK(OC % groups == 0, op, ": groups=", groups, " must divide out_channels, but weight of shape ",
              ws, " has ", OC, " output channels");
  NABLA_CHECK(C % groups == 0, op, ": groups=", groups, " must divide in_channels, but input of shape ", x.sizes(),
              " has ", C, " channels");
  // C / groups, not weight.size(1) * groups: a huge groups (from a file) would overflow.
  NABLA_CHECK(ws[1] == C / groups, op, ": input of shape ", x.sizes(), " has ", C,
              " channels, but weight of shape ", ws, " with groups=", groups, " expects ",
              detail::wide_text(WideInt(ws[1]) * groups), " (weight.size(1) * groups)");
  Conv2dGeometry g;
  g.batch = x.sizes()[0];
  g.in_channels = C, g.in_h = x.sizes()[2], g.in_w = x.sizes()[3];
  g.out_channels = OC;
  set_window(op, g, ws[2], ws[3], s, p, d, groups, x.sizes());
  g.out_h = conv_out_size(op, g.in_h, g.kernel_h, s[0], p[0], d[0]);
  g.out_w = conv_out_size(op, g.in_w, g.kernel_w, s[1], p[1], d[1]);
  return g;
}

namespace {

void check_bias(std::string_view op, Inputs in, int64_t channels) {
  if (in.size() < 3) return;
  NABLA_CHECK(in[2].dim() == 1 && in[2].sizes()[0] == channels, op, ": expected a 1-D bias of size ", channels,
              " (the output channels), got shape ", in[2].sizes());
}

void check_arity(std::string_view op, Inputs in) {
  NABLA_CHECK(in.size() == 2 || in.size() == 3, op, ": expected input, weight and an optional bias, got ",
              in.size(), " tensors");
}

}  // namespace

// attrs: stride, padding, output_padding, groups, dilation. The geometry is
// that of the conv2d whose input gradient this is.
Conv2dGeometry conv_transpose2d_geometry(std::string_view op, const Tensor& x, const Tensor& w, const Attrs& a) {
  const Shape &s = a.ints(0), &p = a.ints(1), &op_pad = a.ints(2), &d = a.ints(4);
  int64_t groups = a.i(3);
  check_hyper(op, s, p, d, groups);
  NABLA_CHECK(op_pad.size() == 2 && op_pad[0] >= 0 && op_pad[1] >= 0, op,
              ": output_padding must be non-negative, got ", op_pad);
  check_4d(op, "input", x.sizes(), "[N, C_in, H, W] (or 3-D [C_in, H, W] unbatched)");
  check_4d(op, "weight", w.sizes(), "[in_channels, out_channels / groups, KH, KW]");
  int64_t Cin = x.sizes()[1];
  NABLA_CHECK(Cin % groups == 0, op, ": groups=", groups, " must divide in_channels, but input of shape ",
              x.sizes(), " has ", Cin, " channels");
  NABLA_CHECK(w.sizes()[0] == Cin, op, ": input of shape ", x.sizes(), " has ", Cin,
              " channels, but weight of shape ", w.sizes(), " expects ", w.sizes()[0], " (weight.size(0))");
  int64_t kh = w.sizes()[2], kw = w.sizes()[3];
  int64_t H = x.sizes()[2], W = x.sizes()[3];
  WideInt woh = WideInt(H - 1) * s[0] - 2 * WideInt(p[0]) + WideInt(d[0]) * (kh - 1) + op_pad[0] + 1;
  WideInt wow = WideInt(W - 1) * s[1] - 2 * WideInt(p[1]) + WideInt(d[1]) * (kw - 1) + op_pad[1] + 1;
  int64_t oh = detail::narrow_size(woh, op, "the output height"), ow = detail::narrow_size(wow, op, "the output width");
  NABLA_CHECK(H > 0 && W > 0 && oh > 0 && ow > 0, op, ": input of shape ", x.sizes(), " with weight ", w.sizes(),
              ", stride ", s, ", padding ", p, ", output_padding ", op_pad, ", dilation ", d,
              " gives an output of size ", oh, "x", ow, "; expected a positive size");
  Conv2dGeometry g;
  g.batch = x.sizes()[0];
  g.in_channels = w.sizes()[1] * groups, g.in_h = oh, g.in_w = ow;
  g.out_channels = Cin, g.out_h = H, g.out_w = W;
  set_window(op, g, kh, kw, s, p, d, groups, x.sizes());
  return g;
}

// attrs: weight_sizes, stride, padding, dilation, groups. out_h/out_w are
// grad_output's (at most the natural output size).
Conv2dGeometry weight_grad_geometry(std::string_view op, const Tensor& x, const Tensor& gy, const Attrs& a) {
  const Shape& ws = a.ints(0);
  NABLA_CHECK(ws.size() == 4, op, ": weight_sizes must have 4 values [OC, C/groups, KH, KW], got ", ws);
  Attrs conv_attrs{a.ints(1), a.ints(2), a.ints(3), a.i(4)};
  check_4d(op, "grad_output", gy.sizes(), "[N, out_channels, OH, OW]");
  Conv2dGeometry g = conv2d_geometry(op, x, ws, conv_attrs);
  NABLA_CHECK(gy.sizes()[0] == g.batch && gy.sizes()[1] == g.out_channels && gy.sizes()[2] <= g.out_h &&
                  gy.sizes()[3] <= g.out_w,
              op, ": grad_output of shape ", gy.sizes(), " does not fit input ", x.sizes(), " and weight ", ws,
              " (expected [", g.batch, ", ", g.out_channels, ", <=", g.out_h, ", <=", g.out_w, "])");
  g.out_h = gy.sizes()[2], g.out_w = gy.sizes()[3];
  return g;
}

namespace {

// ---- entries ------------------------------------------------------------

OutputMetas infer_conv2d(const OpDef& op, Inputs in, const Attrs& a) {
  check_arity(op.name, in);
  check_floating(op.name, in);
  Conv2dGeometry g = conv2d_geometry(op.name, in[0], in[1].sizes(), a);
  check_bias(op.name, in, g.out_channels);
  return {{Shape{g.batch, g.out_channels, g.out_h, g.out_w}, in[0].dtype()}};
}

OutputMetas infer_conv_transpose2d(const OpDef& op, Inputs in, const Attrs& a) {
  check_arity(op.name, in);
  check_floating(op.name, in);
  Conv2dGeometry g = conv_transpose2d_geometry(op.name, in[0], in[1], a);
  check_bias(op.name, in, g.in_channels);
  return {{Shape{g.batch, g.in_channels, g.in_h, g.in_w}, in[0].dtype()}};
}

OutputMetas infer_weight_grad(const OpDef& op, Inputs in, const Attrs& a) {
  check_floating(op.name, in);
  weight_grad_geometry(op.name, in[0], in[1], a);
  return {{a.ints(0), in[0].dtype()}};
}

// ---- gradient rules -----------------------------------------------------

// The op calls of the rules: no public-API normalization (and no PyTorch
// output_padding < stride rule, which the rules may exceed on purpose).
Tensor conv2d_call(const Tensor& x, const Tensor& w, const Shape& s, const Shape& p, const Shape& d, int64_t groups) {
  return call1(conv2d_op, {x, w}, {s, p, d, groups});
}
Tensor conv_transpose2d_call(const Tensor& x, const Tensor& w, const Shape& s, const Shape& p, const Shape& op_pad,
                             int64_t groups, const Shape& d) {
  return call1(conv_transpose2d_op, {x, w}, {s, p, op_pad, groups, d});
}
Tensor weight_grad_call(const Tensor& x, const Tensor& gy, const Shape& ws, const Shape& s, const Shape& p,
                        const Shape& d, int64_t groups) {
  return call1(conv2d_weight_grad_op, {x, gy}, {ws, s, p, d, groups});
}
// Keeps the first h rows and w columns (a no-op when already that size).
Tensor narrow_hw(const Tensor& t, int64_t h, int64_t w) {
  Tensor r = t.sizes()[2] == h ? t : narrow(t, 2, 0, h);
  return r.sizes()[3] == w ? r : narrow(r, 3, 0, w);
}
// output_padding that makes conv_transpose2d of an [.., oh, ow] tensor come
// out [.., in_h, in_w].
Shape recovering_output_padding(const Shape& in_sizes, const Shape& out_sizes, const Shape& ws, const Shape& s,
                                const Shape& p, const Shape& d) {
  Shape r(2);
  for (int i = 0; i < 2; ++i)
    r[i] = in_sizes[2 + i] - ((out_sizes[2 + i] - 1) * s[i] - 2 * p[i] + d[i] * (ws[2 + i] - 1) + 1);
  return r;
}
// Sums H, W first: those dims are contiguous, so the reduction reads gy in
// place, while one sum over {0, 2, 3} makes the reduce kernel copy all of gy
// to bring the reduced dims last (a third of LeNet's backward time).
// A channels-last gy (NHWC in memory) sums over {0, 2, 3} at once: its
// leading dims in memory, rows the reduce kernel adds in place.
Tensor bias_grad(GradCtx& c, const Tensor& gy) {
  if (c.num_inputs() <= 2 || !c.needs_grad(2)) return Tensor();
  if (!gy.is_symbolic() && !gy.is_contiguous() && is_contiguous(gy, MemoryFormat::ChannelsLast)) return sum(gy, {0, 2, 3});
  return sum(sum(gy, {2, 3}), {0});
}
Tensor bias_grad(GradCtx& c) { return bias_grad(c, c.grad()); }

// conv2d's gradients for the output gradient gy.
TensorList conv2d_grad_of(GradCtx& c, const Tensor& gy) {
  const Attrs& a = c.attrs();
  const Shape &s = a.ints(0), &p = a.ints(1), &d = a.ints(2);
  int64_t groups = a.i(3);
  const Shape &xs = c.input_sizes(0), &ws = c.input_sizes(1);
  TensorList r;
  r.push_back(c.needs_grad(0) ? conv_transpose2d_call(gy, c.input(1), s, p,
                                                      recovering_output_padding(xs, gy.sizes(), ws, s, p, d),
                                                      groups, d)
                              : Tensor());
  r.push_back(c.needs_grad(1) ? weight_grad_call(c.input(0), gy, ws, s, p, d, groups) : Tensor());
  if (c.num_inputs() > 2) r.push_back(bias_grad(c, gy));
  return r;
}
TensorList conv2d_grad(GradCtx& c) { return conv2d_grad_of(c, c.grad()); }
// conv2d_relu: ReLU's backward from the (saved) output, then conv2d's.
TensorList conv2d_relu_grad(GradCtx& c) { return conv2d_grad_of(c, threshold_backward(c.grad(), c.output(0), 0.0)); }

TensorList conv_transpose2d_grad(GradCtx& c) {
  const Attrs& a = c.attrs();
  const Shape &s = a.ints(0), &p = a.ints(1), &d = a.ints(4);
  int64_t groups = a.i(3);
  const Tensor& gy = c.grad();
  const Shape &xs = c.input_sizes(0), &ws = c.input_sizes(1);
  TensorList r;
  r.push_back(c.needs_grad(0) ? narrow_hw(conv2d_call(gy, c.input(1), s, p, d, groups), xs[2], xs[3]) : Tensor());
  r.push_back(c.needs_grad(1) ? weight_grad_call(gy, c.input(0), ws, s, p, d, groups) : Tensor());
  if (c.num_inputs() > 2) r.push_back(bias_grad(c));
  return r;
}

TensorList weight_grad_grad(GradCtx& c) {
  const Attrs& a = c.attrs();
  const Shape &ws = a.ints(0), &s = a.ints(1), &p = a.ints(2), &d = a.ints(3);
  int64_t groups = a.i(4);
  const Tensor& gw = c.grad();
  const Shape &xs = c.input_sizes(0), &ys = c.input_sizes(1);
  TensorList r;
  r.push_back(c.needs_grad(0) ? conv_transpose2d_call(c.input(1), gw, s, p,
                                                      recovering_output_padding(xs, ys, ws, s, p, d), groups, d)
                              : Tensor());
  r.push_back(c.needs_grad(1) ? narrow_hw(conv2d_call(c.input(0), gw, s, p, d, groups), ys[2], ys[3]) : Tensor());
  return r;
}

}  // namespace

extern constinit const OpDef conv2d_op{.name = "conv2d", .num_inputs = -1,
                                       .attr_names = "stride,padding,dilation,groups",
                                       .infer = infer_conv2d, .grad = conv2d_grad,
                                       .flags = kNativeReducedFloat,  // bfloat16 on oneDNN (kernels/cpu/conv_ops.cpp)
                                       .promote = Promote::Common, .save_inputs = 0b011};
// relu(conv2d(x, w, b)) in one kernel (a oneDNN ReLU post-op): the eager
// conv2d_relu() and the graph pass that fuses conv2d -> relu
// (graph/passes/fuse_conv.h) run it.
extern constinit const OpDef conv2d_relu_op{.name = "conv2d_relu", .num_inputs = -1,
                                            .attr_names = "stride,padding,dilation,groups",
                                            .infer = infer_conv2d, .grad = conv2d_relu_grad,
                                            .flags = kSaveOutputs, .promote = Promote::Common,
                                            .save_inputs = 0b011};
extern constinit const OpDef conv_transpose2d_op{.name = "conv_transpose2d", .num_inputs = -1,
                                                 .attr_names = "stride,padding,output_padding,groups,dilation",
                                                 .infer = infer_conv_transpose2d,
                                                 .grad = conv_transpose2d_grad, .flags = kNativeReducedFloat,
                                                 .promote = Promote::Common,
                                                 .save_inputs = 0b011};
extern constinit const OpDef conv2d_weight_grad_op{.name = "conv2d_weight_grad", .num_inputs = 2,
                                                   .attr_names = "weight_sizes,stride,padding,dilation,groups",
                                                   .infer = infer_weight_grad,
                                                   .grad = weight_grad_grad, .flags = kNativeReducedFloat,
                                                   .promote = Promote::Common};

namespace {
detail::RegisterOps register_conv{&conv2d_op, &conv2d_relu_op, &conv_transpose2d_op, &conv2d_weight_grad_op};

// One value for every spatial dim, or one per dim.
Shape per_dim(IntList v, std::size_t dims, std::string_view op, const char* what) {
  NABLA_CHECK(v.size() == 1 || v.size() == dims, op, ": ", what, " must have 1 or ", dims, " values, got ", v);
  return v.size() == 1 ? Shape(dims, v[0]) : v.shape();
}

// Runs f on a batch of one for an unbatched (3-D) input.
template <class F>
Tensor batched(const Tensor& input, F&& f) {
  if (input.defined() && input.dim() == 3) return squeeze(f(unsqueeze(input, 0)), 0);
  return f(input);
}

TensorList with_bias(const Tensor& x, const Tensor& w, const Tensor& bias) {
  TensorList in{x, w};
  if (bias.defined()) in.push_back(bias);
  return in;
}

}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride, IntList padding,
              IntList dilation, int64_t groups) {
  Attrs a{per_dim(stride, 2, "conv2d", "stride"), per_dim(padding, 2, "conv2d", "padding"),
          per_dim(dilation, 2, "conv2d", "dilation"), groups};
  return batched(input, [&](const Tensor& x) {
    TensorList in = with_bias(x, weight, bias);
    return call1(conv2d_op, Inputs(in.data(), in.size()), a);
  });
}

Tensor conv2d_relu(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride, IntList padding,
                   IntList dilation, int64_t groups) {
  Attrs a{per_dim(stride, 2, "conv2d_relu", "stride"), per_dim(padding, 2, "conv2d_relu", "padding"),
          per_dim(dilation, 2, "conv2d_relu", "dilation"), groups};
  return batched(input, [&](const Tensor& x) {
    TensorList in = with_bias(x, weight, bias);
    // The fused kernel is the CPU's: another device runs the two ops, and so
    // does a graph being built (a Session may run on any device; on the CPU
    // its graph::fuse_conv_relu pass makes the fused node again), so graphs,
    // saved ones included, hold only conv2d and relu.
    if (x.defined() && (x.is_symbolic() || !x.device().is_cpu()))
      return relu(call1(conv2d_op, Inputs(in.data(), in.size()), a));
    return call1(conv2d_relu_op, Inputs(in.data(), in.size()), a);
  });
}

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride, IntList padding,
              IntList dilation, int64_t groups) {
  NABLA_CHECK(input.defined() && weight.defined(), "conv1d: the input or the weight is an undefined tensor");
  NABLA_CHECK(input.dim() == 2 || input.dim() == 3, "conv1d: expected a 3-D input [N, C, L] (or 2-D [C, L] unbatched), got shape ",
              input.sizes());
  NABLA_CHECK(weight.dim() == 3, "conv1d: expected a 3-D weight [out_channels, in_channels / groups, K], got shape ",
              weight.sizes());
  Shape s{1, per_dim(stride, 1, "conv1d", "stride")[0]}, p{0, per_dim(padding, 1, "conv1d", "padding")[0]},
      d{1, per_dim(dilation, 1, "conv1d", "dilation")[0]};
  int64_t hdim = input.dim() - 1;  // the inserted H axis, just before L
  try {
    return squeeze(conv2d(unsqueeze(input, hdim), unsqueeze(weight, 2), bias, s, p, d, groups), hdim);
  } catch (const Error& e) {
    // Named conv1d, not conv2d (Note [User-facing op names]); the shapes
    // it quotes have the inserted H axis of size 1.
    fail(detail::name_op(e.what(), "conv1d"), " (conv1d runs conv2d over [N, C, 1, L])");
  }
}

Tensor conv2d_nhwc(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride, IntList padding,
                   IntList dilation, int64_t groups) {
  NABLA_CHECK(input.defined(), "conv2d_nhwc: input 0 is an undefined tensor");
  NABLA_CHECK(input.dim() == 4, "conv2d_nhwc: expected a 4-D input [N, H, W, C], got shape ", input.sizes());
  // A strided NCHW view of the NHWC data: the kernel's im2col reads it in place.
  return permute(conv2d(permute(input, {0, 3, 1, 2}), weight, bias, stride, padding, dilation, groups), {0, 2, 3, 1});
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntList stride,
                        IntList padding, IntList output_padding, int64_t groups, IntList dilation) {
  const char* op = "conv_transpose2d";
  Shape s = per_dim(stride, 2, op, "stride"), d = per_dim(dilation, 2, op, "dilation");
  Shape opad = per_dim(output_padding, 2, op, "output_padding");
  for (int i = 0; i < 2; ++i)
    NABLA_CHECK(opad[i] < s[i] || opad[i] < d[i], op, ": output_padding ", opad,
                " must be smaller than either stride ", s, " or dilation ", d, " in each dim");
  Attrs a{s, per_dim(padding, 2, op, "padding"), opad, groups, d};
  return batched(input, [&](const Tensor& x) {
    TensorList in = with_bias(x, weight, bias);
    return call1(conv_transpose2d_op, Inputs(in.data(), in.size()), a);
  });
}

Tensor conv2d_weight_grad(const Tensor& input, const Tensor& grad_output, IntList weight_sizes, IntList stride,
                          IntList padding, IntList dilation, int64_t groups) {
  const char* op = "conv2d_weight_grad";
  return weight_grad_call(input, grad_output, weight_sizes.shape(), per_dim(stride, 2, op, "stride"),
                          per_dim(padding, 2, op, "padding"), per_dim(dilation, 2, op, "dilation"), groups);
}

}  // namespace nabla

// Pooling ops: max_pool2d (values + int64 indices), avg_pool2d and
// adaptive_avg_pool2d, each with a backward primitive whose own gradient is
// the forward op again, so gradients of gradients work:
//   max_pool2d          -> max_pool2d_backward(g, indices)  -> max_pool2d_gather(gg, indices) -> (backward again)
//   avg_pool2d          -> avg_pool2d_backward(g)           -> avg_pool2d(gg)
//   adaptive_avg_pool2d -> adaptive_avg_pool2d_backward(g)  -> adaptive_avg_pool2d(gg)
// The backward ops are linear in the gradient, and max-pool indices are
// piecewise constant, so these rules are exact.
#include "nabla/ops/conv.h"
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/ops.h"
#include "nabla/ops/pool_geometry.h"
#include "nabla/ops/window_arith.h"

namespace nabla {

extern const OpDef max_pool2d_op, max_pool2d_backward_op, max_pool2d_gather_op, avg_pool2d_op,
    avg_pool2d_backward_op, adaptive_avg_pool2d_op, adaptive_avg_pool2d_backward_op;

namespace {

void check_input(std::string_view op, const Tensor& x, const char* what = "input") {
  NABLA_CHECK(x.dim() == 4, op, ": expected a 4-D ", what, " [N, C, H, W] (or 3-D [C, H, W] unbatched), got shape ",
              x.sizes());
  NABLA_CHECK(is_floating(x.dtype()), op, ": expected a floating-point ", what, ", got dtype ", x.dtype());
}

// Output size along one axis, PyTorch's pooling_output_shape: with
// ceil_mode the last window must start inside the input or left padding.
// In 128 bits: huge kernels, strides and dilations from a file cannot overflow.
int64_t pool_out_size(std::string_view op, int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  using detail::WideInt;
  WideInt span = WideInt(in) + 2 * WideInt(p) - WideInt(d) * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  WideInt out = (span >= 0 ? span / s : -((-span + s - 1) / s)) + 1;  // floor division: span may be negative
  if (ceil_mode && (out - 1) * s >= WideInt(in) + p) --out;
  if (out < 0) out = 0;  // too small: the caller says so (a huge dilation makes it far below int64)
  return detail::narrow_size(out, op, "the output size");
}

// attrs (first four): kernel_size, stride, padding, dilation (each 2 values)
// and ceil_mode; `sizes` is the input's shape.
Pool2dGeometry pool_geometry(std::string_view op, const Shape& sizes, const Shape& k, const Shape& s,
                             const Shape& p, const Shape& d, bool ceil_mode) {
  NABLA_CHECK(k.size() == 2 && k[0] > 0 && k[1] > 0, op, ": kernel_size must be positive, got ", k);
  NABLA_CHECK(s.size() == 2 && s[0] > 0 && s[1] > 0, op, ": stride must be positive, got ", s);
  NABLA_CHECK(d.size() == 2 && d[0] > 0 && d[1] > 0, op, ": dilation must be positive, got ", d);
  NABLA_CHECK(p.size() == 2 && p[0] >= 0 && p[1] >= 0 && p[0] <= k[0] / 2 && p[1] <= k[1] / 2, op,
              ": padding ", p, " must be non-negative and at most half of kernel_size ", k);
  // Padding up to half the kernel lets a window be far larger than the input
  // (a model file's kernel_shape of 2^62, with pads of 2^61): the kernels'
  // loops over it would run for ages. A window of more elements than the
  // input plane and than 2^24 is refused (a global pool's is the plane).
  using detail::WideInt;
  NABLA_CHECK(WideInt(k[0]) * k[1] <= std::max(WideInt(1) << 24, WideInt(sizes[2]) * sizes[3]), op,
              ": kernel_size ", k, " has more elements than the input's ", sizes[2], "x", sizes[3],
              " planes and than 2^24; expected a window no larger than the (padded) input");
  Pool2dGeometry g;
  g.planes = sizes[0] * sizes[1];
  g.in_h = sizes[2], g.in_w = sizes[3];
  g.kernel_h = k[0], g.kernel_w = k[1];
  g.stride_h = s[0], g.stride_w = s[1];
  g.pad_h = p[0], g.pad_w = p[1];
  g.dilation_h = d[0], g.dilation_w = d[1];
  g.out_h = pool_out_size(op, g.in_h, k[0], s[0], p[0], d[0], ceil_mode);
  g.out_w = pool_out_size(op, g.in_w, k[1], s[1], p[1], d[1], ceil_mode);
  NABLA_CHECK(g.out_h > 0 && g.out_w > 0, op, ": input of shape ", sizes, " is too small for kernel_size ", k,
              " (dilation ", d, ", padding ", p, "): the output would be ", g.out_h, "x", g.out_w,
              "; expected the (dilated) kernel to fit the padded input");
  return g;
}
Shape out_shape(const Shape& in, const Pool2dGeometry& g) { return {in[0], in[1], g.out_h, g.out_w}; }

}  // namespace

// ---- max_pool2d: attrs kernel_size, stride, padding, dilation, ceil_mode
Pool2dGeometry max_geometry(std::string_view op, const Shape& sizes, const Attrs& a) {
  return pool_geometry(op, sizes, a.ints(0), a.ints(1), a.ints(2), a.ints(3), a.b(4));
}

namespace {
OutputMetas infer_max_pool2d(const OpDef& op, Inputs in, const Attrs& a) {
  check_input(op.name, in[0]);
  Shape s = out_shape(in[0].sizes(), max_geometry(op.name, in[0].sizes(), a));
  return {{s, in[0].dtype()}, {s, kInt64}};
}

// max_pool2d_backward(gy, indices): attrs input_sizes.
OutputMetas infer_max_backward(const OpDef& op, Inputs in, const Attrs& a) {
  const Shape& is = a.ints(0);
  check_input(op.name, in[0], "grad_output");
  NABLA_CHECK(in[1].dtype() == kInt64 && in[1].sizes() == in[0].sizes(), op.name,
              ": expected int64 indices of the grad_output's shape ", in[0].sizes(), ", got ", in[1].dtype(),
              " of shape ", in[1].sizes());
  NABLA_CHECK(is.size() == 4 && is[0] == in[0].sizes()[0] && is[1] == in[0].sizes()[1], op.name,
              ": input_sizes ", is, " do not match grad_output of shape ", in[0].sizes());
  return {{is, in[0].dtype()}};
}
// max_pool2d_gather(src, indices): no attrs.
OutputMetas infer_max_gather(const OpDef& op, Inputs in, const Attrs&) {
  check_input(op.name, in[0], "source");
  NABLA_CHECK(in[1].dtype() == kInt64 && in[1].dim() == 4 && in[1].sizes()[0] == in[0].sizes()[0] &&
                  in[1].sizes()[1] == in[0].sizes()[1],
              op.name, ": expected int64 indices [N, C, OH, OW] matching source of shape ", in[0].sizes(), ", got ",
              in[1].dtype(), " of shape ", in[1].sizes());
  return {{in[1].sizes(), in[0].dtype()}};
}
Tensor max_backward_call(const Tensor& g, const Tensor& idx, const Shape& input_sizes) {
  return call1(max_pool2d_backward_op, {g, idx}, {input_sizes});
}
Tensor max_gather_call(const Tensor& src, const Tensor& idx) { return call1(max_pool2d_gather_op, {src, idx}); }

}  // namespace

Pool2dGeometry plane_geometry(const Shape& in_sizes, const Tensor& out) {
  Pool2dGeometry g;
  g.planes = in_sizes[0] * in_sizes[1];
  g.in_h = in_sizes[2], g.in_w = in_sizes[3];
  g.out_h = out.sizes()[2], g.out_w = out.sizes()[3];
  return g;
}

// ---- avg_pool2d: attrs kernel_size, stride, padding, ceil_mode,
// count_include_pad, divisor_override; the backward op puts input_sizes first.
Pool2dGeometry avg_geometry(std::string_view op, const Shape& sizes, const Attrs& a, std::size_t at) {
  NABLA_CHECK(a.i(at + 5) >= 0, op, ": divisor_override must be positive (or 0 for none), got ", a.i(at + 5));
  return pool_geometry(op, sizes, a.ints(at), a.ints(at + 1), a.ints(at + 2), Shape{1, 1}, a.b(at + 3));
}

namespace {
OutputMetas infer_avg_pool2d(const OpDef& op, Inputs in, const Attrs& a) {
  check_input(op.name, in[0]);
  return {{out_shape(in[0].sizes(), avg_geometry(op.name, in[0].sizes(), a, 0)), in[0].dtype()}};
}
OutputMetas infer_avg_backward(const OpDef& op, Inputs in, const Attrs& a) {
  check_input(op.name, in[0], "grad_output");
  const Shape& is = a.ints(0);
  NABLA_CHECK(is.size() == 4, op.name, ": input_sizes must have 4 values, got ", is);
  Shape expect = out_shape(is, avg_geometry(op.name, is, a, 1));
  NABLA_CHECK(in[0].sizes() == expect, op.name, ": grad_output of shape ", in[0].sizes(), " does not match ",
              expect, ", the output for input_sizes ", is);
  return {{is, in[0].dtype()}};
}
Attrs avg_attrs_without_sizes(const Attrs& a) {
  return {a.ints(1), a.ints(2), a.ints(3), a.b(4), a.b(5), a.i(6)};
}
Attrs avg_attrs_with_sizes(const Shape& sizes, const Attrs& a) {
  return {sizes, a.ints(0), a.ints(1), a.ints(2), a.b(3), a.b(4), a.i(5)};
}

// ---- adaptive_avg_pool2d: attrs output_size; the backward op: input_sizes.
OutputMetas infer_adaptive(const OpDef& op, Inputs in, const Attrs& a) {
  check_input(op.name, in[0]);
  const Shape& os = a.ints(0);
  NABLA_CHECK(os.size() == 2 && os[0] > 0 && os[1] > 0, op.name, ": output_size must be positive, got ", os);
  NABLA_CHECK(in[0].sizes()[2] > 0 && in[0].sizes()[3] > 0, op.name, ": expected a non-empty plane, got shape ",
              in[0].sizes());
  return {{Shape{in[0].sizes()[0], in[0].sizes()[1], os[0], os[1]}, in[0].dtype()}};
}
OutputMetas infer_adaptive_backward(const OpDef& op, Inputs in, const Attrs& a) {
  check_input(op.name, in[0], "grad_output");
  const Shape& is = a.ints(0);
  NABLA_CHECK(is.size() == 4 && is[0] == in[0].sizes()[0] && is[1] == in[0].sizes()[1] && is[2] > 0 && is[3] > 0,
              op.name, ": input_sizes ", is, " do not match grad_output of shape ", in[0].sizes());
  return {{is, in[0].dtype()}};
}

}  // namespace

extern constinit const OpDef max_pool2d_op{
    .name = "max_pool2d", .attr_names = "kernel_size,stride,padding,dilation,ceil_mode", .infer = infer_max_pool2d,
    .grad = [](GradCtx& c) -> TensorList {
      // detach: under create_graph the saved int64 output comes back with
      // autograd history attached; the indices are constants of the rule.
      return {max_backward_call(c.grad(0), c.output(1).detach(), c.input_sizes(0))};
    },
    // bfloat16 on kernels of its own (kernels/cpu/pool_ops.cpp says which)
    .flags = kSaveOutputs | kNativeReducedFloat, .save_inputs = 0, .num_differentiable_outputs = 1};
extern constinit const OpDef max_pool2d_backward_op{
    .name = "max_pool2d_backward", .num_inputs = 2, .attr_names = "input_sizes", .infer = infer_max_backward,
    .grad = [](GradCtx& c) -> TensorList { return {max_gather_call(c.grad(), c.input(1).detach()), Tensor()}; },
    .flags = kNativeReducedFloat, .save_inputs = 0b10};
extern constinit const OpDef max_pool2d_gather_op{
    .name = "max_pool2d_gather", .num_inputs = 2, .infer = infer_max_gather,
    .grad = [](GradCtx& c) -> TensorList {
      return {max_backward_call(c.grad(), c.input(1).detach(), c.input_sizes(0)), Tensor()};
    },
    .save_inputs = 0b10};
extern constinit const OpDef avg_pool2d_op{
    .name = "avg_pool2d", .attr_names = "kernel_size,stride,padding,ceil_mode,count_include_pad,divisor_override",
    .infer = infer_avg_pool2d,
    .grad = [](GradCtx& c) -> TensorList {
      return {call1(avg_pool2d_backward_op, {c.grad()}, avg_attrs_with_sizes(c.input_sizes(0), c.attrs()))};
    },
    .save_inputs = 0};
extern constinit const OpDef avg_pool2d_backward_op{
    .name = "avg_pool2d_backward",
    .attr_names = "input_sizes,kernel_size,stride,padding,ceil_mode,count_include_pad,divisor_override",
    .infer = infer_avg_backward,
    .grad = [](GradCtx& c) -> TensorList {
      return {call1(avg_pool2d_op, {c.grad()}, avg_attrs_without_sizes(c.attrs()))};
    },
    .save_inputs = 0};
extern constinit const OpDef adaptive_avg_pool2d_op{
    .name = "adaptive_avg_pool2d", .attr_names = "output_size", .infer = infer_adaptive,
    .grad = [](GradCtx& c) -> TensorList {
      return {call1(adaptive_avg_pool2d_backward_op, {c.grad()}, {c.input_sizes(0)})};
    },
    .save_inputs = 0};
extern constinit const OpDef adaptive_avg_pool2d_backward_op{
    .name = "adaptive_avg_pool2d_backward", .attr_names = "input_sizes", .infer = infer_adaptive_backward,
    .grad = [](GradCtx& c) -> TensorList {
      const Shape& gs = c.input_sizes(0);
      return {call1(adaptive_avg_pool2d_op, {c.grad()}, {Shape{gs[2], gs[3]}})};
    },
    .save_inputs = 0};

namespace {
detail::RegisterOps register_pool{&max_pool2d_op,    &max_pool2d_backward_op,          &max_pool2d_gather_op,
                                  &avg_pool2d_op,    &avg_pool2d_backward_op,          &adaptive_avg_pool2d_op,
                                  &adaptive_avg_pool2d_backward_op};

Shape per_dim2(IntList v, std::string_view op, const char* what) {
  NABLA_CHECK(v.size() == 1 || v.size() == 2, op, ": ", what, " must have 1 or 2 values, got ", v);
  return v.size() == 1 ? Shape(2, v[0]) : v.shape();
}
// Pooling attrs: kernel, stride (defaults to kernel), padding.
struct Window {
  Shape k, s, p;
};
Window window(std::string_view op, IntList kernel_size, IntList stride, IntList padding) {
  Shape k = per_dim2(kernel_size, op, "kernel_size");
  return {k, stride.empty() ? k : per_dim2(stride, op, "stride"), per_dim2(padding, op, "padding")};
}
// Runs f on a batch of one for an unbatched (3-D) input; f returns all outputs.
template <class F>
TensorList batched(const Tensor& input, F&& f) {
  if (input.dim() != 3) return f(input);
  TensorList r = f(unsqueeze(input, 0));
  for (Tensor& t : r) t = squeeze(t, 0);
  return r;
}

}  // namespace

std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntList kernel_size, IntList stride,
                                                  IntList padding, IntList dilation, bool ceil_mode) {
  NABLA_CHECK(input.defined(), "max_pool2d: input 0 is an undefined tensor");
  Window w = window("max_pool2d", kernel_size, stride, padding);
  Attrs a{w.k, w.s, w.p, per_dim2(dilation, "max_pool2d", "dilation"), ceil_mode};
  TensorList r = batched(input, [&](const Tensor& x) { return call(max_pool2d_op, std::span<const Tensor>(&x, 1), a); });
  return {r[0], r[1]};
}
Tensor max_pool2d(const Tensor& input, IntList kernel_size, IntList stride, IntList padding, IntList dilation,
                  bool ceil_mode) {
  return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode).first;
}
Tensor max_pool2d_backward(const Tensor& grad_output, const Tensor& indices, IntList input_sizes) {
  return max_backward_call(grad_output, indices, input_sizes.shape());
}
Tensor max_pool2d_gather(const Tensor& source, const Tensor& indices) { return max_gather_call(source, indices); }

Tensor avg_pool2d(const Tensor& input, IntList kernel_size, IntList stride, IntList padding, bool ceil_mode,
                  bool count_include_pad, int64_t divisor_override) {
  NABLA_CHECK(input.defined(), "avg_pool2d: input 0 is an undefined tensor");
  Window w = window("avg_pool2d", kernel_size, stride, padding);
  Attrs a{w.k, w.s, w.p, ceil_mode, count_include_pad, divisor_override};
  return batched(input, [&](const Tensor& x) { return TensorList{call1(avg_pool2d_op, {x}, a)}; })[0];
}
Tensor avg_pool2d_backward(const Tensor& grad_output, IntList input_sizes, IntList kernel_size, IntList stride,
                           IntList padding, bool ceil_mode, bool count_include_pad, int64_t divisor_override) {
  Window w = window("avg_pool2d_backward", kernel_size, stride, padding);
  return call1(avg_pool2d_backward_op, {grad_output},
               {input_sizes.shape(), w.k, w.s, w.p, ceil_mode, count_include_pad, divisor_override});
}

Tensor adaptive_avg_pool2d(const Tensor& input, IntList output_size) {
  NABLA_CHECK(input.defined(), "adaptive_avg_pool2d: input 0 is an undefined tensor");
  Attrs a{per_dim2(output_size, "adaptive_avg_pool2d", "output_size")};
  return batched(input, [&](const Tensor& x) { return TensorList{call1(adaptive_avg_pool2d_op, {x}, a)}; })[0];
}
Tensor adaptive_avg_pool2d_backward(const Tensor& grad_output, IntList input_sizes) {
  return call1(adaptive_avg_pool2d_backward_op, {grad_output}, {input_sizes.shape()});
}

}  // namespace nabla

// batch_norm: a composite that checks its arguments, picks the batch's or the
// running statistics and updates the running statistics in place, over three
// table ops that do the work (PyTorch's native_batch_norm split):
//   native_batch_norm(x[, weight][, bias]) -> (y, mean, var): the training
//     forward with the batch's mean and biased variance per channel;
//   native_batch_norm_backward(dy, x, mean, var[, weight]) -> (dx, dweight,
//     dbias): its gradient, PyTorch's formula;
//   channel_affine(x, center, scale, shift) -> (x - center[c]) * scale[c] +
//     shift[c]: eval mode, with scale and shift folded from the running
//     statistics, weight and bias on [C] values first.
// batch_norm_relu (a composite like batch_norm) is relu(batch_norm(...))
// with, in training mode, two more table ops that fold ReLU into the same
// passes:
//   native_batch_norm_relu(x[, weight][, bias]) -> (relu(y), mean, var);
//   native_batch_norm_relu_backward(dy, x, mean, var, output[, weight]):
//     native_batch_norm_backward of threshold_backward(dy, output, 0).
// The CPU runs them with kernels of its own (kernels/cpu/batch_norm.cpp: two
// passes over x forward, two backward). Every other device runs a generic
// kernel made of ops (reductions and elementwise ops, which every device
// has), below. They are kernels rather than composites so that autograd
// records the op and its rule on every device: a graph is built once for any
// device (its nodes are these ops, since the CPU has kernels), and a compiled
// step on a device must compute what eager autograd computes there, bit for
// bit (tests/opencl/fit_jit_opencl_test.cpp).
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/kernel_registry.h"
#include "nabla/ops/nn_functional.h"
#include "nabla/ops/ops.h"

namespace nabla {

extern const OpDef batch_norm_relu_op, native_batch_norm_op, native_batch_norm_backward_op, native_batch_norm_relu_op,
    native_batch_norm_relu_backward_op, channel_affine_op;

namespace {

// Shape [1, C, 1, ...] that broadcasts a per-channel vector against input [N, C, *].
Shape channel_shape(const Tensor& input) {
  Shape s(static_cast<std::size_t>(input.dim()), 1);
  s[1] = input.sizes()[1];
  return s;
}

// The dims a channel's statistics reduce: all but dim 1.
Shape reduced_dims(const Tensor& x) {
  Shape dims{0};
  for (int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
  return dims;
}

// Values per channel.
double per_channel(const Tensor& x) {
  return static_cast<double>(x.numel()) / static_cast<double>(std::max<int64_t>(x.sizes()[1], 1));
}

void check_channel_vector(const Tensor& t, const char* what, const Tensor& input, std::string_view op) {
  if (!t.defined()) return;
  int64_t c = input.sizes()[1];
  NABLA_CHECK(t.dim() == 1 && t.sizes()[0] == c, op, ": ", what, " has shape ", t.sizes(), ", expected [", c,
              "] (one value per channel of input of shape ", input.sizes(), ")");
}

void check_input(const Tensor& x, std::string_view op) {
  NABLA_CHECK(x.dim() >= 2, op, ": expected input of shape [N, C] or [N, C, *] (2 or more dims), got shape ",
              x.sizes());
  NABLA_CHECK(is_floating(x.dtype()), op, ": expected a floating point input, got ", x.dtype());
}

// ---- batch_norm (the public op) ---------------------------------------------

// inputs: input, running_mean, running_var, weight, bias (all but input
// optional). `api` names the function called in errors. With `relu`, the
// result is relu of batch norm's: native_batch_norm_relu in training mode,
// relu after channel_affine in eval mode (nothing to gain there: the eval
// form is folded into a convolution where it can be, graph/passes/fold_conv_bn.h).
Tensor batch_norm_impl(Inputs in, bool training, double momentum, double eps, bool relu, std::string_view api) {
  const Tensor& x = in[0];
  const Tensor &running_mean = in[1], &running_var = in[2], &weight = in[3], &bias = in[4];
  check_input(x, api);
  check_channel_vector(running_mean, "running_mean", x, api);
  check_channel_vector(running_var, "running_var", x, api);
  check_channel_vector(weight, "weight", x, api);
  check_channel_vector(bias, "bias", x, api);
  NABLA_CHECK(running_mean.defined() == running_var.defined(), api,
              ": running_mean and running_var must be given together (got only one)");
  if (!training) {
    NABLA_CHECK(running_mean.defined(), api,
                ": eval mode (training=false) needs running_mean and running_var; got none");
    // [C] values first, then one pass over x.
    Tensor scale = rsqrt(running_var + eps);
    if (weight.defined()) scale = scale * weight;
    Tensor shift = bias.defined() ? bias : zeros_like(scale);
    Tensor y = call1(channel_affine_op, {x, running_mean, scale, shift});
    return relu ? nabla::relu(y) : y;
  }
  double n = per_channel(x);
  NABLA_CHECK(n > 1, api, ": expected more than 1 value per channel when training, got input of shape ", x.sizes());
  TensorList ins{x};
  if (weight.defined()) ins.push_back(weight);
  if (bias.defined()) ins.push_back(bias);
  TensorList out = call(relu ? native_batch_norm_relu_op : native_batch_norm_op, Inputs(ins.data(), ins.size()),
                        {eps, weight.defined(), bias.defined()});
  if (running_mean.defined()) {
    // In place, outside autograd: the running stats are buffers, not part of the graph.
    NoGradGuard no_grad;
    Tensor rm = running_mean, rv = running_var;
    Tensor unbiased = out[2].detach() * (n / (n - 1));
    rm.mul_(1.0 - momentum).add_(out[1].detach().to(rm.dtype()) * momentum);
    rv.mul_(1.0 - momentum).add_(unbiased.to(rv.dtype()) * momentum);
  }
  return out[0];
}

// attrs: training, momentum, eps
TensorList batch_norm_composite(Inputs in, const Attrs& a) {
  return {batch_norm_impl(in, a.b(0), a.f(1), a.f(2), /*relu=*/false, "batch_norm")};
}
TensorList batch_norm_relu_composite(Inputs in, const Attrs& a) {
  return {batch_norm_impl(in, a.b(0), a.f(1), a.f(2), /*relu=*/true, "batch_norm_relu")};
}

// ---- native_batch_norm --------------------------------------------------------
// inputs: input[, weight][, bias]; attrs: eps, has_weight, has_bias.

struct Affine {
  Tensor weight, bias;
};
Affine affine_inputs(Inputs in, const Attrs& a, std::string_view op) {
  const bool has_w = a.b(1), has_b = a.b(2);
  NABLA_CHECK(in.size() == 1u + has_w + has_b, op, ": expected ", 1 + has_w + has_b,
              " inputs (input, then weight and bias as has_weight/has_bias say), got ", in.size());
  return {has_w ? in[1] : Tensor(), has_b ? in[1 + has_w] : Tensor()};
}

OutputMetas infer_native_batch_norm(const OpDef& op, Inputs in, const Attrs& a) {
  const Tensor& x = in[0];
  check_input(x, op.name);
  auto [w, b] = affine_inputs(in, a, op.name);
  check_channel_vector(w, "weight", x, op.name);
  check_channel_vector(b, "bias", x, op.name);
  const Shape c{x.sizes()[1]};
  return {{x.sizes(), x.dtype()}, {c, x.dtype()}, {c, x.dtype()}};
}

TensorList native_batch_norm_as_ops(Inputs in, const Attrs& a) {
  const Tensor& x = in[0];
  auto [w, b] = affine_inputs(in, a, "native_batch_norm");
  const Shape dims = reduced_dims(x), cs = channel_shape(x);
  Tensor mean_k = mean(x, dims, true);
  Tensor var_k = var(x, dims, /*unbiased=*/false, true);
  Tensor y = (x - mean_k) * rsqrt(var_k + a.f(0));
  if (w.defined()) y = y * reshape(w, cs);
  if (b.defined()) y = y + reshape(b, cs);
  return {y, reshape(mean_k, {x.sizes()[1]}), reshape(var_k, {x.sizes()[1]})};
}

TensorList native_batch_norm_relu_as_ops(Inputs in, const Attrs& a) {
  TensorList r = native_batch_norm_as_ops(in, a);
  r[0] = relu(r[0]);
  return r;
}

// Both forward ops' rule: the backward op of the pair, which for
// native_batch_norm_relu also reads the output (ReLU's mask).
template <bool Relu>
TensorList native_batch_norm_grad(GradCtx& c) {
  const Attrs& a = c.attrs();
  const bool has_w = a.b(1), has_b = a.b(2);
  TensorList ins{c.grad(0), c.input(0), c.output(1), c.output(2)};
  if (Relu) ins.push_back(c.output(0));
  if (has_w) ins.push_back(c.input(1));
  TensorList g = call(Relu ? native_batch_norm_relu_backward_op : native_batch_norm_backward_op,
                      Inputs(ins.data(), ins.size()), {a.f(0)});
  TensorList r{g[0]};
  if (has_w) r.push_back(g[1]);
  if (has_b) r.push_back(g[2]);
  return r;
}

// ---- native_batch_norm_backward -------------------------------------------------
// inputs: grad_output, input, mean, var (native_batch_norm's outputs 1 and 2)[, weight]; attrs: eps.
// native_batch_norm_relu_backward (Relu) takes native_batch_norm_relu's
// output after var: grad_output, input, mean, var, output[, weight]. It is
// native_batch_norm_backward of threshold_backward(grad_output, output, 0).

// Where the weight is among the inputs, if given.
template <bool Relu>
constexpr std::size_t kWeightAt = Relu ? 5 : 4;

template <bool Relu>
OutputMetas infer_native_batch_norm_backward(const OpDef& op, Inputs in, const Attrs&) {
  constexpr std::size_t w_at = kWeightAt<Relu>;
  NABLA_CHECK(in.size() == w_at || in.size() == w_at + 1, op.name, ": expected inputs (grad_output, input, mean, var",
              Relu ? ", output" : "", "[, weight]), got ", in.size(), " tensors");
  const Tensor& x = in[1];
  check_input(x, op.name);
  NABLA_CHECK(in[0].sizes() == x.sizes(), op.name, ": grad_output has shape ", in[0].sizes(),
              ", expected the input's shape ", x.sizes());
  check_channel_vector(in[2], "mean", x, op.name);
  check_channel_vector(in[3], "var", x, op.name);
  if (Relu)
    NABLA_CHECK(in[4].sizes() == x.sizes(), op.name, ": output has shape ", in[4].sizes(),
                ", expected the input's shape ", x.sizes());
  if (in.size() > w_at) check_channel_vector(in[w_at], "weight", x, op.name);
  const Shape c{x.sizes()[1]};
  return {{x.sizes(), x.dtype()}, {c, x.dtype()}, {c, x.dtype()}};
}

template <bool Relu>
TensorList native_batch_norm_backward_as_ops(Inputs in, const Attrs& a) {
  const Tensor& x = in[1];
  const Tensor dy = Relu ? threshold_backward(in[0], in[4], 0.0) : in[0];
  const Shape dims = reduced_dims(x), cs = channel_shape(x);
  const double n = per_channel(x);
  Tensor r = rsqrt(reshape(in[3], cs) + a.f(0));
  Tensor xhat = (x - reshape(in[2], cs)) * r;
  Tensor db = sum(dy, dims, true), dw = sum(dy * xhat, dims, true);
  Tensor scale = in.size() > kWeightAt<Relu> ? reshape(in[kWeightAt<Relu>], cs) * r : r;
  Tensor dx = scale * (dy - db / n - xhat * (dw / n));
  return {dx, reshape(dw, {x.sizes()[1]}), reshape(db, {x.sizes()[1]})};
}

// The gradient of the backward (double backward). Its outputs, as functions of
// dy, x and w (mean and var are x's statistics, recomputed here with ops so
// that this rule is itself differentiable in x; no gradient goes to the mean
// and var inputs, which native_batch_norm gives without one):
//   db = sum(dy), dw = sum(dy xh), dx = w r P(dy)
// with r = 1/sqrt(var + eps), xh = (x - mean) r, and per channel of n values
// P(v) = v - mean(v) - xh mean(v xh). P is symmetric, and for any a
// sum_i a_i dxh_i/dx = r P(a). For output gradients gx, gw, gb:
//   g_dy = w r P(gx) + gw xh + gb
//   g_w  = r sum(gx P(dy))
//   g_x  = r P(a) - (A_r r^2 / n) xh,  where (m2 = mean(dy xh))
//     a   = dL/dxh = gw dy - w r (gx m2 + dy sum(gx xh) / n)
//     A_r = dL/dr  = w sum(gx (dy - mean(dy) - xh m2)).
// With Relu, dy is threshold_backward(grad_output, output, 0), linear in
// grad_output with the same mask (g_grad_output = that mask on g_dy), and
// piecewise constant in output (a zero gradient, as threshold_backward's).
template <bool Relu>
TensorList native_batch_norm_backward_grad(GradCtx& c) {
  constexpr int w_at = static_cast<int>(kWeightAt<Relu>);
  Tensor x = c.input(1);
  Tensor dy = Relu ? threshold_backward(c.input(0), c.input(4), 0.0) : c.input(0);
  const bool has_w = c.num_inputs() == w_at + 1;
  const Shape dims = reduced_dims(x), cs = channel_shape(x);
  const double n = per_channel(x);
  const double eps = c.attrs().f(0);
  Tensor mu = mean(x, dims, true);
  Tensor r = rsqrt(var(x, dims, /*unbiased=*/false, true) + eps);
  Tensor xh = (x - mu) * r;
  Tensor wr = has_w ? reshape(c.input(w_at), cs) * r : r;
  const Tensor& gx = c.grad(0);
  Tensor gw = reshape(c.grad(1), cs), gb = reshape(c.grad(2), cs);
  auto P = [&](const Tensor& v) { return v - mean(v, dims, true) - xh * mean(v * xh, dims, true); };
  TensorList grads(static_cast<std::size_t>(c.num_inputs()));
  if (c.needs_grad(0)) {
    grads[0] = wr * P(gx) + gw * xh + gb;
    if (Relu) grads[0] = threshold_backward(grads[0], c.input(4), 0.0);
  }
  if (Relu && c.needs_grad(4)) grads[4] = zeros_like(c.input(4));
  if (has_w && c.needs_grad(w_at)) grads[w_at] = reshape(r * sum(gx * P(dy), dims, true), {x.sizes()[1]});
  if (c.needs_grad(1)) {
    Tensor m2 = mean(dy * xh, dims, true);
    Tensor a = gw * dy - wr * (gx * m2 + dy * (sum(gx * xh, dims, true) / n));
    Tensor w = has_w ? reshape(c.input(w_at), cs) : Tensor();
    Tensor a_r = sum(gx * (dy - mean(dy, dims, true) - xh * m2), dims, true);
    if (has_w) a_r = a_r * w;
    grads[1] = r * P(a) - a_r * r * r / n * xh;
  }
  return grads;
}

// ---- channel_affine ------------------------------------------------------------
// inputs: input [N, C, *], center, scale, shift (each [C]).

OutputMetas infer_channel_affine(const OpDef& op, Inputs in, const Attrs&) {
  NABLA_CHECK(in.size() == 4, op.name, ": expected inputs (input, center, scale, shift), got ", in.size(), " tensors");
  check_input(in[0], op.name);
  check_channel_vector(in[1], "center", in[0], op.name);
  check_channel_vector(in[2], "scale", in[0], op.name);
  check_channel_vector(in[3], "shift", in[0], op.name);
  return {{in[0].sizes(), in[0].dtype()}};
}

TensorList channel_affine_as_ops(Inputs in, const Attrs&) {
  const Shape cs = channel_shape(in[0]);
  return {(in[0] - reshape(in[1], cs)) * reshape(in[2], cs) + reshape(in[3], cs)};
}

TensorList channel_affine_grad(GradCtx& c) {
  Tensor x = c.input(0), scale = c.input(2);
  const Shape dims = reduced_dims(x), cs = channel_shape(x);
  const Tensor& dy = c.grad();
  TensorList g(4);
  if (c.needs_grad(0)) g[0] = dy * reshape(scale, cs);
  if (c.needs_grad(1) || c.needs_grad(3)) {
    Tensor db = sum(dy, dims);
    if (c.needs_grad(1)) g[1] = -(db * scale);
    if (c.needs_grad(3)) g[3] = db;
  }
  if (c.needs_grad(2)) g[2] = sum(dy * (x - reshape(c.input(1), cs)), dims);
  return g;
}

}  // namespace

extern constinit const OpDef batch_norm_op{.name = "batch_norm", .num_inputs = 5, .attr_names = "training,momentum,eps",
                                           .composite = batch_norm_composite};
extern constinit const OpDef batch_norm_relu_op{.name = "batch_norm_relu",
                                                .num_inputs = 5,
                                                .attr_names = "training,momentum,eps",
                                                .composite = batch_norm_relu_composite};
extern constinit const OpDef native_batch_norm_op{.name = "native_batch_norm",
                                                  .num_inputs = -1,
                                                  .attr_names = "eps,has_weight,has_bias",
                                                  .infer = infer_native_batch_norm,
                                                  .grad = native_batch_norm_grad<false>,
                                                  .flags = kSaveOutputs,
                                                  .promote = Promote::Common,
                                                  .num_differentiable_outputs = 1};
extern constinit const OpDef native_batch_norm_backward_op{.name = "native_batch_norm_backward",
                                                           .num_inputs = -1,
                                                           .attr_names = "eps",
                                                           .infer = infer_native_batch_norm_backward<false>,
                                                           .grad = native_batch_norm_backward_grad<false>,
                                                           .promote = Promote::Common};
// relu(batch norm) in training mode: eager batch_norm_relu() on the CPU and
// the graph pass graph::fuse_batch_norm_relu run it.
extern constinit const OpDef native_batch_norm_relu_op{.name = "native_batch_norm_relu",
                                                       .num_inputs = -1,
                                                       .attr_names = "eps,has_weight,has_bias",
                                                       .infer = infer_native_batch_norm,
                                                       .grad = native_batch_norm_grad<true>,
                                                       .flags = kSaveOutputs,
                                                       .promote = Promote::Common,
                                                       .num_differentiable_outputs = 1};
extern constinit const OpDef native_batch_norm_relu_backward_op{.name = "native_batch_norm_relu_backward",
                                                                .num_inputs = -1,
                                                                .attr_names = "eps",
                                                                .infer = infer_native_batch_norm_backward<true>,
                                                                .grad = native_batch_norm_backward_grad<true>,
                                                                .promote = Promote::Common};
extern constinit const OpDef channel_affine_op{.name = "channel_affine",
                                               .num_inputs = 4,
                                               .infer = infer_channel_affine,
                                               .grad = channel_affine_grad,
                                               .promote = Promote::Common};

namespace {

detail::RegisterOps register_batch_norm{&batch_norm_op,
                                        &batch_norm_relu_op,
                                        &native_batch_norm_op,
                                        &native_batch_norm_backward_op,
                                        &native_batch_norm_relu_op,
                                        &native_batch_norm_relu_backward_op,
                                        &channel_affine_op};

// The generic kernel: the op computed with ops on the inputs' device, outside
// autograd, copied into the outputs the dispatcher made.
template <TensorList (*AsOps)(Inputs, const Attrs&)>
void kernel_of_ops(Inputs in, const Attrs& a, std::span<Tensor> out) {
  NoGradGuard no_grad;
  TensorList inputs;
  for (const Tensor& t : in) inputs.push_back(t.detach());
  TensorList r = AsOps(Inputs(inputs.data(), inputs.size()), a);
  for (std::size_t i = 0; i < out.size(); ++i) out[i].copy_(r[i]);
}

[[maybe_unused]] const bool kGenericKernelsRegistered = [] {
  register_generic_kernel(native_batch_norm_op, kernel_of_ops<native_batch_norm_as_ops>);
  register_generic_kernel(native_batch_norm_backward_op, kernel_of_ops<native_batch_norm_backward_as_ops<false>>);
  register_generic_kernel(native_batch_norm_relu_op, kernel_of_ops<native_batch_norm_relu_as_ops>);
  register_generic_kernel(native_batch_norm_relu_backward_op, kernel_of_ops<native_batch_norm_backward_as_ops<true>>);
  register_generic_kernel(channel_affine_op, kernel_of_ops<channel_affine_as_ops>);
  return true;
}();

}  // namespace

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps) {
  const Tensor in[5] = {input, running_mean, running_var, weight, bias};
  return std::move(call(batch_norm_op, in, {training, momentum, eps})[0]);
}

Tensor batch_norm_relu(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                       const Tensor& weight, const Tensor& bias, bool training, double momentum, double eps) {
  // The fused op is the CPU's. Another device runs the two ops, and so does
  // a graph being built (a Session may run on any device; on the CPU its
  // graph::fuse_batch_norm_relu pass makes the fused nodes again), so that
  // graphs, saved ones included, hold only batch_norm's ops and relu.
  if (input.defined() && (input.is_symbolic() || !input.device().is_cpu()))
    return relu(batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps));
  const Tensor in[5] = {input, running_mean, running_var, weight, bias};
  return std::move(call(batch_norm_relu_op, in, {training, momentum, eps})[0]);
}

}  // namespace nabla

// Classification losses: cross_entropy and nll_loss with class-index targets
// (fused table entries with CPU kernels: no log_softmax tensor is made in the
// forward), and cross_entropy with class-probability targets (a composite).
//
// Gradient rules, per sample i with target t, weight w, smoothing e, C classes:
//   loss_i = -(1-e) w[t] log p_t - (e/C) sum_c w[c] log p_c,  p = softmax(x_i)
//   dloss_i/dx_c = a_i p_c - b_ic  with  a_i = (1-e) w[t] + (e/C) sum_c w[c],
//                                        b_ic = (1-e) w[t] [c == t] + (e/C) w[c]
// (zero for ignored samples), times g_i, or g / sum of non-ignored w[t] for
// "mean". p is exp(log_softmax(x)) built from nabla ops, so the rule is
// differentiable again.
#include "nabla/core/user_op.h"
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/loss.h"
#include "nabla/ops/loss_common.h"
#include "nabla/ops/op.h"
#include "nabla/ops/ops.h"

namespace nabla {
namespace {

using detail::Reduction;

// Inputs (input [N, C, d...], target int64 [N, d...], optional weight [C]);
// `reduction_attr` is the position of the reduction string.
OutputMetas infer_class_loss(const OpDef& op, Inputs in, const Attrs& a, std::size_t reduction_attr) {
  NABLA_CHECK(in.size() == 2 || in.size() == 3, op.name, ": expected inputs (input, target[, weight]), got ",
              in.size(), " tensors");
  NABLA_CHECK(in[0].dim() >= 2, op.name, ": the op takes a batched input [N, C, ...], got shape ", in[0].sizes(),
              "; call nabla::", op.name, "() for an unbatched one");
  detail::check_class_target(op.name, in[0], in[1]);
  if (in.size() == 3) {
    detail::check_class_weight(op.name, in[2], in[0].size(1));
    NABLA_CHECK(in[2].dtype() == in[0].dtype(), op.name, ": expected weight of the input's dtype ", in[0].dtype(),
                ", got ", in[2].dtype());
  }
  Reduction r = detail::parse_reduction(op.name, a.str(reduction_attr));
  return {{r == Reduction::None ? in[1].sizes() : Shape{}, in[0].dtype()}};
}

// attrs: ignore_index, label_smoothing, reduction
OutputMetas infer_cross_entropy(const OpDef& op, Inputs in, const Attrs& a) {
  double e = a.f(1);
  NABLA_CHECK(e >= 0.0 && e <= 1.0, op.name, ": label_smoothing must be in [0, 1], got ", e);
  return infer_class_loss(op, in, a, 2);
}
// attrs: ignore_index, reduction
OutputMetas infer_nll_loss(const OpDef& op, Inputs in, const Attrs& a) { return infer_class_loss(op, in, a, 1); }

// The incoming gradient per sample ([N, 1, d...]) or as a 0-dim scale.
// `target_weight` is w[t] per sample (0 where ignored), [N, 1, d...].
Tensor per_sample_grad(GradCtx& c, Reduction r, const Tensor& target_weight) {
  const Tensor& g = c.grad();
  if (r == Reduction::None) return unsqueeze(g, 1);
  if (r == Reduction::Sum) return g;
  return g / sum(target_weight);
}

TensorList cross_entropy_grad(GradCtx& c) {
  Tensor x = c.input(0), t = c.input(1);
  const Attrs& a = c.attrs();
  const double e = a.f(1);
  const int64_t C = x.size(1);
  const DType dt = x.dtype();
  const Device dev = x.device();
  Tensor onehot = detail::one_hot_classes(t, C, dt);                     // [N, C, d...]
  Tensor valid = unsqueeze((t != a.i(0)).to(dt), 1);                     // [N, 1, d...]
  Tensor wb = c.num_inputs() > 2 ? detail::class_dim_view(c.input(2), x.dim()) : Tensor();  // [1, C, 1...]
  Tensor wt = wb.defined() ? sum(onehot * wb, {1}, true) * valid : valid;  // w[t], 0 if ignored
  Tensor p = exp(detail::log_softmax_stable(x, 1));
  Tensor dx;
  if (e == 0.0) {
    dx = (p - onehot) * wt;
  } else {
    Tensor total = wb.defined() ? sum(wb) * (e / C) : scalar_tensor(e, TensorOptions(dt).device(dev));  // (e/C) sum_c w[c]
    Tensor smooth = wb.defined() ? wb * (e / C) : scalar_tensor(e / C, TensorOptions(dt).device(dev));   // (e/C) w[c]
    dx = p * (wt * (1.0 - e) + valid * total) - (onehot * wt * (1.0 - e) + valid * smooth);
  }
  // Ignored samples get exactly 0, also when the "mean" scale 1 / sum of
  // weights is inf because every target is ignored (PyTorch gives 0 there).
  Tensor scaled = per_sample_grad(c, detail::parse_reduction("cross_entropy", a.str(2)), wt) * dx;
  TensorList grads{where(unsqueeze(t != a.i(0), 1), scaled, zeros({}, TensorOptions(dt).device(x.device()))), Tensor()};
  if (c.num_inputs() > 2) grads.push_back(Tensor());  // weight: not differentiated (as in PyTorch)
  return grads;
}

TensorList nll_loss_grad(GradCtx& c) {
  Tensor t = c.input(1);
  const Shape& sizes = c.input_sizes(0);
  const DType dt = c.input_dtype(0);
  Tensor valid = unsqueeze(t != c.attrs().i(0), 1);
  Tensor onehot = detail::one_hot_classes(t, sizes[1], dt);
  Tensor at_target = logical_and(onehot != 0.0, valid);  // where -g w[t] goes
  Tensor picked = onehot * valid.to(dt);
  if (c.num_inputs() > 2) picked = picked * detail::class_dim_view(c.input(2), static_cast<int64_t>(sizes.size()));
  Tensor wt = sum(picked, {1}, true);
  // Only the non-ignored target positions get a gradient: elsewhere exactly 0,
  // also when the "mean" scale is inf (every target ignored), as in PyTorch.
  Tensor scaled = -(per_sample_grad(c, detail::parse_reduction("nll_loss", c.attrs().str(1)), wt) * picked);
  TensorList grads{where(at_target, scaled, zeros({}, TensorOptions(dt).device(scaled.device()))), Tensor()};
  if (c.num_inputs() > 2) grads.push_back(Tensor());
  return grads;
}

// Probability targets. inputs: input, target (input's shape), optional weight;
// attrs: label_smoothing, reduction. "mean" averages over samples.
TensorList cross_entropy_probs_composite(Inputs in, const Attrs& a) {
  const Tensor& x = in[0];
  Tensor t = in[1];
  NABLA_CHECK(x.dim() >= 1, "cross_entropy: expected input of shape [C], [N, C] or [N, C, d1, ...], got a 0-dim tensor");
  NABLA_CHECK(t.sizes() == x.sizes(), "cross_entropy: expected a probabilities target of the input's shape ",
              x.sizes(), " (or class indices of dtype int64), got shape ", t.sizes());
  detail::check_floating("cross_entropy", "input", x);
  Reduction r = detail::parse_reduction("cross_entropy", a.str(1));
  const double e = a.f(0);
  NABLA_CHECK(e >= 0.0 && e <= 1.0, "cross_entropy: label_smoothing must be in [0, 1], got ", e);
  const int64_t cd = x.dim() == 1 ? 0 : 1;
  const int64_t C = x.size(cd);
  Tensor log_p = detail::log_softmax_stable(x, cd);
  if (e > 0.0) t = t * (1.0 - e) + e / static_cast<double>(C);
  Tensor terms = log_p * t;
  if (in.size() > 2) {
    detail::check_class_weight("cross_entropy", in[2], C);
    terms = terms * (cd == 0 ? in[2] : detail::class_dim_view(in[2], x.dim()));
  }
  return {detail::reduce_loss(-sum(terms, {cd}), r)};
}

}  // namespace

extern constinit const OpDef cross_entropy_op{.name = "cross_entropy",
                                              .num_inputs = -1,
                                              .attr_names = "ignore_index,label_smoothing,reduction",
                                              .infer = infer_cross_entropy,
                                              .grad = cross_entropy_grad};
extern constinit const OpDef nll_loss_op{.name = "nll_loss",
                                         .num_inputs = -1,
                                         .attr_names = "ignore_index,reduction",
                                         .infer = infer_nll_loss,
                                         .grad = nll_loss_grad,
                                         .save_inputs = 0b110};  // the rule reads target and weight, not input
extern constinit const OpDef cross_entropy_probs_op{.name = "cross_entropy_probs",
                                                    .num_inputs = -1,
                                                    .attr_names = "label_smoothing,reduction",
                                                    .composite = cross_entropy_probs_composite};

namespace {
detail::RegisterOps register_cross_entropy{&cross_entropy_op, &nll_loss_op, &cross_entropy_probs_op};

// Runs a class op on the batched form of input/target; an unbatched "none"
// result ([1]) goes back to a 0-dim tensor.
Tensor call_class_op(const OpDef& op, std::string_view loss, const Tensor& input, const Tensor& target_in,
                     const Tensor& weight, const std::string& reduction, Attrs attrs) {
  Tensor target = detail::index_target(loss, target_in);
  detail::check_class_target(loss, input, target);
  TensorList ins{detail::batched_input(input), detail::batched_target(target, input)};
  if (weight.defined()) ins.push_back(weight.to(input.dtype()));
  Tensor out = call1(op, std::span<const Tensor>(ins.data(), ins.size()), attrs);
  return input.dim() == 1 && reduction == "none" ? reshape(out, {}) : out;
}

}  // namespace

Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                     const std::string& reduction, double label_smoothing) try {
  if (is_floating(target.dtype())) {
    TensorList ins{input, target};
    if (weight.defined()) ins.push_back(weight);
    return call1(cross_entropy_probs_op, std::span<const Tensor>(ins.data(), ins.size()),
                 {label_smoothing, reduction});
  }
  return call_class_op(cross_entropy_op, "cross_entropy", input, target, weight, reduction,
                       {ignore_index, label_smoothing, reduction});
} catch (const Error&) {
  detail::rethrow_naming("cross_entropy");  // not cross_entropy_probs: Note [User-facing op names]
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                const std::string& reduction) try {
  return call_class_op(nll_loss_op, "nll_loss", input, target, weight, reduction, {ignore_index, reduction});
} catch (const Error&) {
  detail::rethrow_naming("nll_loss");
}

}  // namespace nabla

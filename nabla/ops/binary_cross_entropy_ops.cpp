// Binary cross entropy, of probabilities and of logits.
//
// binary_cross_entropy is a table entry with a kernel and PyTorch's gradient
// rule, g w (x - t) / max(x (1 - x), 1e-12): differentiating the clamped-log
// forward instead would give 0 * inf = nan wherever x is exactly 0 or 1,
// which is where a saturated float32 sigmoid puts it.
//
// binary_cross_entropy_with_logits is a composite:
//   loss = (1 - t) x + (1 + (pos_weight - 1) t) * softplus(-x)
// with softplus(-x) = -log sigmoid(x) computed by neg_log_sigmoid below,
// finite for any x and smooth at x = 0 (the max(x,0) + log1p(exp(-|x|)) form
// gives the wrong subgradient there through relu'(0) = abs'(0) = 0).
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/loss.h"
#include "nabla/ops/loss_common.h"
#include "nabla/ops/op.h"
#include "nabla/ops/ops.h"

namespace nabla {
namespace {

using detail::Reduction;

// Inputs: input, target (input's shape), optional weight (broadcasts), all
// of one float dtype; attrs: reduction.
OutputMetas infer_bce(const OpDef& op, Inputs in, const Attrs& a) {
  NABLA_CHECK(in.size() == 2 || in.size() == 3, op.name, ": expected inputs (input, target[, weight]), got ",
              in.size(), " tensors");
  detail::check_same_shape(op.name, in[0], in[1]);
  if (in.size() == 3) detail::check_broadcasts_to(op.name, "weight", in[2], in[0].sizes());
  for (std::size_t i = 1; i < in.size(); ++i)
    NABLA_CHECK(in[i].dtype() == in[0].dtype(), op.name, ": expected ", i == 1 ? "target" : "weight",
                " of the input's dtype ", in[0].dtype(), ", got ", in[i].dtype());
  Reduction r = detail::parse_reduction(op.name, a.str(0));
  return {{r == Reduction::None ? in[0].sizes() : Shape{}, in[0].dtype()}};
}

TensorList bce_grad(GradCtx& c) {
  Tensor x = c.input(0), t = c.input(1);
  Tensor g = detail::unreduce_grad(c.grad(), x.sizes(), detail::parse_reduction("binary_cross_entropy",
                                                                                 c.attrs().str(0)));
  if (c.num_inputs() > 2) g = g * c.input(2);
  // PyTorch's EPSILON is the float 1e-12 (9.99999996e-13): the same bound
  // gives the same gradient where x is exactly 0 or 1.
  constexpr double kEpsilon = static_cast<double>(1e-12f);
  TensorList grads{c.needs_grad(0) ? g * (x - t) / clamp_min(x * (1.0 - x), kEpsilon) : Tensor(),
                   c.needs_grad(1) ? g * (log1p(-x) - log(x)) : Tensor()};
  if (c.num_inputs() > 2) grads.push_back(Tensor());  // weight: not differentiated (as in PyTorch)
  return grads;
}

// -log(sigmoid(x)) for any x: each where() branch sees x clamped to its own
// side, so the unselected branch is finite too and passes no nan gradient.
Tensor neg_log_sigmoid(const Tensor& x) {
  Tensor neg = log1p(exp(clamp_max(x, 0.0))) - x;  // x < 0: -x + log(1 + e^x)
  Tensor pos = log1p(exp(-clamp_min(x, 0.0)));     // x >= 0: log(1 + e^-x)
  return where(x < 0.0, neg, pos);
}

// Inputs: input, target, then weight and pos_weight when the flags say so;
// attrs: reduction, has_weight, has_pos_weight.
TensorList bce_with_logits_composite(Inputs in, const Attrs& a) {
  constexpr std::string_view kName = "binary_cross_entropy_with_logits";
  const bool has_w = a.b(1), has_pw = a.b(2);
  NABLA_CHECK(in.size() == 2u + has_w + has_pw, kName, ": expected ", 2 + has_w + has_pw, " tensors, got ",
              in.size());
  const Tensor &x = in[0], &t = in[1];
  detail::check_same_shape(kName, x, t);
  Reduction r = detail::parse_reduction(kName, a.str(0));
  Tensor nls = neg_log_sigmoid(x);
  Tensor loss;
  if (has_pw) {
    const Tensor& pw = in[2 + has_w];
    detail::check_broadcasts_to(kName, "pos_weight", pw, x.sizes());
    loss = (1.0 - t) * x + (1.0 + (pw - 1.0) * t) * nls;
  } else {
    loss = (1.0 - t) * x + nls;
  }
  if (has_w) {
    detail::check_broadcasts_to(kName, "weight", in[2], x.sizes());
    loss = loss * in[2];
  }
  return {detail::reduce_loss(loss, r)};
}

}  // namespace

extern constinit const OpDef binary_cross_entropy_op{.name = "binary_cross_entropy",
                                                     .num_inputs = -1,
                                                     .attr_names = "reduction",
                                                     .infer = infer_bce,
                                                     .grad = bce_grad};
extern constinit const OpDef binary_cross_entropy_with_logits_op{.name = "binary_cross_entropy_with_logits",
                                                                 .num_inputs = -1,
                                                                 .attr_names = "reduction,has_weight,has_pos_weight",
                                                                 .composite = bce_with_logits_composite};

namespace {
detail::RegisterOps register_bce{&binary_cross_entropy_op, &binary_cross_entropy_with_logits_op};
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                            const std::string& reduction) {
  // target and weight follow the input's dtype, so float32 labels work with a float64 input.
  NABLA_CHECK(input.defined() && target.defined(), "binary_cross_entropy: the input or the target is an undefined "
              "tensor");
  const bool convert = is_floating(input.dtype());
  TensorList ins{input, convert && is_floating(target.dtype()) ? target.to(input.dtype()) : target};
  if (weight.defined()) ins.push_back(convert && is_floating(weight.dtype()) ? weight.to(input.dtype()) : weight);
  return call1(binary_cross_entropy_op, std::span<const Tensor>(ins.data(), ins.size()), {reduction});
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight,
                                        const std::string& reduction, const Tensor& pos_weight) {
  TensorList ins{input, target};
  if (weight.defined()) ins.push_back(weight);
  if (pos_weight.defined()) ins.push_back(pos_weight);
  return call1(binary_cross_entropy_with_logits_op, std::span<const Tensor>(ins.data(), ins.size()),
               {reduction, weight.defined(), pos_weight.defined()});
}

}  // namespace nabla

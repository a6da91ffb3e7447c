// Regression losses: mse_loss, l1_loss, smooth_l1_loss, huber_loss. Each is a
// composite of elementwise ops (autograd flows through them, so double
// backward works) followed by the reduction. Unlike PyTorch, which broadcasts
// a target of another shape with a warning, a shape mismatch is an error here:
// it is almost always a bug (e.g. [N] against [N, 1] giving an [N, N] loss).
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/loss.h"
#include "nabla/ops/loss_common.h"
#include "nabla/ops/op.h"
#include "nabla/ops/ops.h"

namespace nabla {
namespace {

using detail::Reduction;

// Checks input/target and returns their difference; attrs[0] is the reduction.
Tensor checked_diff(std::string_view loss, Inputs in, const Attrs& a, Reduction& r) {
  NABLA_CHECK(in.size() == 2, loss, ": expected inputs (input, target), got ", in.size(), " tensors");
  detail::check_same_shape(loss, in[0], in[1]);
  r = detail::parse_reduction(loss, a.str(0));
  return in[0] - in[1];
}

// attrs: reduction
TensorList mse_composite(Inputs in, const Attrs& a) {
  Reduction r;
  Tensor d = checked_diff("mse_loss", in, a, r);
  return {detail::reduce_loss(d * d, r)};
}
TensorList l1_composite(Inputs in, const Attrs& a) {
  Reduction r;
  Tensor d = checked_diff("l1_loss", in, a, r);
  return {detail::reduce_loss(abs(d), r)};
}
// The quadratic piece of smooth_l1/huber sees d with its infinities zeroed:
// where() sends it a zero gradient, and 0 * (2 d) would be NaN at d = +-inf
// (PyTorch: the linear piece's slope there). NaN still propagates.
Tensor finite_or_zero(const Tensor& d) { return where(isinf(d), zeros_like(d), d); }

// attrs: reduction, beta. Quadratic below beta, linear above.
TensorList smooth_l1_composite(Inputs in, const Attrs& a) {
  Reduction r;
  Tensor d = checked_diff("smooth_l1_loss", in, a, r);
  const double beta = a.f(1);
  NABLA_CHECK(beta >= 0.0, "smooth_l1_loss: beta must be >= 0, got ", beta);
  Tensor ad = abs(d);
  if (beta == 0.0) return {detail::reduce_loss(ad, r)};
  Tensor dq = finite_or_zero(d);
  return {detail::reduce_loss(where(ad < beta, dq * dq * (0.5 / beta), ad - 0.5 * beta), r)};
}
// attrs: reduction, delta
TensorList huber_composite(Inputs in, const Attrs& a) {
  Reduction r;
  Tensor d = checked_diff("huber_loss", in, a, r);
  const double delta = a.f(1);
  NABLA_CHECK(delta > 0.0, "huber_loss: delta must be > 0, got ", delta);
  Tensor ad = abs(d);
  Tensor dq = finite_or_zero(d);
  return {detail::reduce_loss(where(ad < delta, dq * dq * 0.5, (ad - 0.5 * delta) * delta), r)};
}

}  // namespace

extern constinit const OpDef mse_loss_op{.name = "mse_loss", .num_inputs = 2, .attr_names = "reduction",
                                         .composite = mse_composite};
extern constinit const OpDef l1_loss_op{.name = "l1_loss", .num_inputs = 2, .attr_names = "reduction",
                                        .composite = l1_composite};
extern constinit const OpDef smooth_l1_loss_op{.name = "smooth_l1_loss", .num_inputs = 2,
                                               .attr_names = "reduction,beta",
                                               .composite = smooth_l1_composite};
extern constinit const OpDef huber_loss_op{.name = "huber_loss", .num_inputs = 2, .attr_names = "reduction,delta",
                                           .composite = huber_composite};

namespace {
detail::RegisterOps register_regression_loss{&mse_loss_op, &l1_loss_op, &smooth_l1_loss_op, &huber_loss_op};
}

Tensor mse_loss(const Tensor& input, const Tensor& target, const std::string& reduction) {
  return call1(mse_loss_op, {input, target}, {reduction});
}
Tensor l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction) {
  return call1(l1_loss_op, {input, target}, {reduction});
}
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction, double beta) {
  return call1(smooth_l1_loss_op, {input, target}, {reduction, beta});
}
Tensor huber_loss(const Tensor& input, const Tensor& target, const std::string& reduction, double delta) {
  return call1(huber_loss_op, {input, target}, {reduction, delta});
}

}  // namespace nabla

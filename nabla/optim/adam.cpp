// Adam / AdamW update (torch/optim/adam.py and adamw.py, _single_tensor_*, 1.13):
//   g = maximize ? -g : g;  Adam: g += wd * p;  AdamW: p *= 1 - lr * wd
//   m = b1 * m + (1 - b1) * g;  v = b2 * v + (1 - b2) * g * g
//   vmax = max(vmax, v) (amsgrad);  denom = sqrt(v or vmax) / sqrt(1 - b2^t) + eps
//   p -= lr / (1 - b1^t) * m / denom
#include "nabla/optim/adam.h"

#include <cmath>

#include "nabla/ops/ops.h"
#include "nabla/ops/optimizer_update.h"

namespace nabla::optim {

namespace {
Options adam_defaults(double weight_decay) {
  return {{"lr", 1e-3},          {"beta1", 0.9},    {"beta2", 0.999},   {"eps", 1e-8},
          {"weight_decay", weight_decay}, {"amsgrad", 0.0}, {"maximize", 0.0}};
}
// What adam_update_ takes: contiguous float32 or float64 on p's device.
bool fusable(const Tensor& t, const Tensor& p) {
  return t.defined() && (t.dtype() == kFloat32 || t.dtype() == kFloat64) && t.dtype() == p.dtype() &&
         t.is_contiguous() && t.sizes() == p.sizes() && t.device() == p.device();
}

}  // namespace

Adam::Adam(std::vector<Tensor> params, Options options) : Adam(one_group(std::move(params)), std::move(options)) {}
Adam::Adam(std::vector<ParamGroup> groups, Options options)
    : Adam("Adam", false, std::move(groups), std::move(options)) {}

Adam::Adam(const char* name, bool decoupled, std::vector<ParamGroup> groups, Options options)
    : Optimizer(name, merge_options(name, adam_defaults(decoupled ? 1e-2 : 0.0), options)), decoupled_(decoupled) {
  init(std::move(groups));
}

AdamW::AdamW(std::vector<Tensor> params, Options options) : AdamW(one_group(std::move(params)), std::move(options)) {}
AdamW::AdamW(std::vector<ParamGroup> groups, Options options)
    : Adam("AdamW", true, std::move(groups), std::move(options)) {}

void Adam::check_group(const ParamGroup& g) const {
  check_range(g, "lr", 0.0, true, INFINITY, false, "lr >= 0");
  check_range(g, "eps", 0.0, true, INFINITY, false, "eps >= 0");
  check_range(g, "beta1", 0.0, true, 1.0, false, "beta1 in [0, 1)");
  check_range(g, "beta2", 0.0, true, 1.0, false, "beta2 in [0, 1)");
  check_range(g, "weight_decay", 0.0, true, INFINITY, false, "weight_decay >= 0");
  check_flag(g, "amsgrad");
  check_flag(g, "maximize");
}

void Adam::update(const ParamGroup& g, Tensor& p, const Tensor& grad_arg, ParamState& s) {
  // A strided gradient (a transposed view, as a compiled step's gradient of a
  // Linear weight is) is copied once so the fused loop below can take it.
  const Tensor grad_in = grad_arg.is_contiguous() ? grad_arg : grad_arg.contiguous();
  const double lr = g.get("lr"), beta1 = g.get("beta1"), beta2 = g.get("beta2"), eps = g.get("eps");
  const double weight_decay = g.get("weight_decay");
  const bool amsgrad = g.get("amsgrad") != 0.0;
  Tensor grad = g.get("maximize") != 0.0 ? -grad_in : grad_in;
  if (s.buffers.empty()) {
    s.buffers["exp_avg"] = zeros_like(p);
    s.buffers["exp_avg_sq"] = zeros_like(p);
    if (amsgrad) s.buffers["max_exp_avg_sq"] = zeros_like(p);
  }
  const double step = static_cast<double>(s.step);
  const double bias_correction1 = 1.0 - std::pow(beta1, step);
  const double bias_correction2_sqrt = std::sqrt(1.0 - std::pow(beta2, step));
  const double step_size = lr / bias_correction1;
  Tensor& exp_avg = s.buffers["exp_avg"];
  Tensor& exp_avg_sq = s.buffers["exp_avg_sq"];
  // Contiguous float32/float64 without amsgrad (the usual case): the
  // adam_update op in place, one fused pass on the CPU (kernels/cpu/
  // adam_update.h), the same numbers as the tensor expressions below. The
  // scalars go to the parameter's device as 0-dim tensors: no host sync.
  if (!amsgrad && fusable(p, p) && fusable(grad_in, p) && fusable(exp_avg, p) && fusable(exp_avg_sq, p)) {
    // Weight decay as the tensor path does it (maximize is already in grad).
    if (decoupled_ && weight_decay != 0.0) p.mul_(1.0 - lr * weight_decay);
    else if (!decoupled_ && weight_decay != 0.0) grad = grad + p * weight_decay;
    const TensorOptions scalar = TensorOptions(p.dtype()).device(p.device());
    adam_update_(p, grad, exp_avg, exp_avg_sq, full({}, step_size, scalar), full({}, bias_correction2_sqrt, scalar),
                 beta1, beta2, eps);
    return;
  }
  if (decoupled_) p.mul_(1.0 - lr * weight_decay);
  else if (weight_decay != 0.0) grad = grad + p * weight_decay;
  exp_avg.mul_(beta1).add_(grad * (1.0 - beta1));
  exp_avg_sq.mul_(beta2).add_(grad * grad * (1.0 - beta2));
  Tensor denom;
  if (amsgrad) {
    Tensor& max_sq = s.buffers["max_exp_avg_sq"];
    if (!max_sq.defined()) max_sq = zeros_like(p);
    max_sq.copy_(maximum(max_sq, exp_avg_sq));
    denom = max_sq.sqrt() / bias_correction2_sqrt + eps;
  } else {
    denom = exp_avg_sq.sqrt() / bias_correction2_sqrt + eps;
  }
  p.sub_(exp_avg / denom * step_size);
}

}  // namespace nabla::optim

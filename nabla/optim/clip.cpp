// clip_grad_norm_ / clip_grad_value_: the same arithmetic as torch.nn.utils (1.13).
#include "nabla/optim/clip.h"

#include <cmath>

#include "nabla/core/grad_mode.h"
#include "nabla/ops/ops.h"

namespace nabla::optim {

Tensor clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, double norm_type) {
  NABLA_CHECK(!std::isnan(max_norm) && max_norm >= 0, "clip_grad_norm_: invalid max_norm = ", max_norm,
              ", expected max_norm >= 0");
  NABLA_CHECK(norm_type > 0, "clip_grad_norm_: invalid norm_type = ", norm_type,
              ", expected a positive number or INFINITY");
  NoGradGuard no_grad;
  std::vector<Tensor> grads;
  for (const auto& p : params)
    if (p.defined() && p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return zeros({});
  std::vector<Tensor> norms;
  for (const auto& g : grads) norms.push_back(std::isinf(norm_type) ? amax(abs(g)) : norm(g, norm_type));
  Tensor total = std::isinf(norm_type) ? amax(stack(norms)) : norm(stack(norms), norm_type);
  Tensor coef = clamp_max(max_norm / (total + 1e-6), 1.0);
  for (auto& g : grads) g.mul_(coef.to(g.dtype()));
  return total;
}

void clip_grad_value_(const std::vector<Tensor>& params, double clip_value) {
  NABLA_CHECK(!std::isnan(clip_value) && clip_value >= 0, "clip_grad_value_: invalid clip_value = ", clip_value,
              ", expected clip_value >= 0");
  NoGradGuard no_grad;
  for (const auto& p : params)
    if (p.defined() && p.grad().defined()) p.grad().clamp_(-clip_value, clip_value);
}

}  // namespace nabla::optim

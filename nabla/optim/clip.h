// Gradient clipping (torch.nn.utils.clip_grad_norm_ / clip_grad_value_), in
// nabla::optim because it runs between backward() and optimizer.step().
// Parameters without a gradient are ignored.
#pragma once
#include <vector>

#include "nabla/core/tensor.h"

namespace nabla::optim {

// Scales all gradients by max_norm / (total_norm + 1e-6) when that is below 1,
// where total_norm is the norm_type-norm of the vector of all gradient
// elements (norm_type may be INFINITY). Returns total_norm (a 0-dim tensor,
// before clipping; 0 when no parameter has a gradient).
Tensor clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, double norm_type = 2.0);

// Clamps every gradient element into [-clip_value, clip_value].
void clip_grad_value_(const std::vector<Tensor>& params, double clip_value);

}  // namespace nabla::optim

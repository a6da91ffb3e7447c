// Optimizer updates as ops. adam_update is one Adam step on one parameter,
// in one pass (TensorFlow's ApplyAdam): graph-mode AdamOptimizer builds it,
// and a Session writes its results straight into the variables it assigns
// (graph/passes/variable_writes.h). Same arithmetic as optim::Adam.
#pragma once
#include "nabla/core/tensor.h"
#include "nabla/ops/op.h"

namespace nabla {

// Returns {param', exp_avg', exp_avg_sq'} for
//   exp_avg' = beta1 * exp_avg + (1 - beta1) * grad
//   exp_avg_sq' = beta2 * exp_avg_sq + (1 - beta2) * grad * grad
//   param' = param - exp_avg' / (sqrt(exp_avg_sq') / bias_correction2_sqrt + eps) * step_size
// (PyTorch's Adam with step_size = lr / (1 - beta1^t) and bias_correction2_sqrt
// = sqrt(1 - beta2^t)). param, grad, exp_avg and exp_avg_sq: one shape, one
// float32 or float64 dtype; step_size and bias_correction2_sqrt: 0-dim tensors
// of that dtype. Not differentiable. The inputs are not changed.
TensorList adam_update(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                       const Tensor& step_size, const Tensor& bias_correction2_sqrt, double beta1, double beta2,
                       double eps);

// adam_update in place: param, exp_avg and exp_avg_sq (contiguous) are updated
// where they are, by the kernel their device registered (the op's
// updates_input), and their version counters move as in-place ops move them.
// optim::Adam's step on any device: no host synchronization, one pass over
// memory on the CPU. Same checks as adam_update, plus one device for all.
void adam_update_(Tensor& param, const Tensor& grad, Tensor& exp_avg, Tensor& exp_avg_sq, const Tensor& step_size,
                  const Tensor& bias_correction2_sqrt, double beta1, double beta2, double eps);

}  // namespace nabla

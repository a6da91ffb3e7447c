// The Adam update in one pass over memory, shared by optim::Adam's fused step
// (eager and compile()) and the adam_update op (graph-mode AdamOptimizer):
//   g = maximize ? -g : g;  Adam: g += wd * p;  AdamW: p *= decay_factor
//   m = b1 * m + (1 - b1) * g;  v = b2 * v + (1 - b2) * g * g
//   p -= step_size * m / (sqrt(v) / bias_correction2_sqrt + eps)
// Every operation is the one the tensor expressions of optim/adam.cpp make,
// in the same order, rounded to T each time (no FMA contraction), so the
// results are bit for bit theirs.
#pragma once
#include <cstdint>

namespace nabla::cpu {

// In double; each is rounded to T once, as the tensor expressions round
// their scalars.
struct AdamConstants {
  double beta1 = 0.9, one_minus_beta1 = 0.1, beta2 = 0.999, one_minus_beta2 = 0.001;
  double weight_decay = 0, decay_factor = 1;
  double bias_correction2_sqrt = 1, eps = 1e-8, step_size = 1e-3;
  bool decoupled = false;        // AdamW: p *= decay_factor
  bool weight_decay_on = false;  // Adam: g += weight_decay * p
  bool maximize = false;
};

// Updates p, m and v (n contiguous elements each) in place; on nabla's
// thread pool. T: float or double.
template <class T>
void adam_update(const AdamConstants& c, T* p, const T* grad, T* m, T* v, int64_t n);

// The update's division sqrt(v) / bias_correction2_sqrt on one value, as the
// loop does it (by the reciprocal and a correction where that applies; the
// same bits as a / c): exposed for tests/ops/adam_division_test.cpp. a: a
// square root of the loop's v (>= +0, +inf or NaN; v is never -0).
template <class T>
T divide_by_constant(T a, T c);

}  // namespace nabla::cpu

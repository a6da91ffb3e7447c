// Whole-tensor comparisons, as PyTorch 1.13 defines them: equal (same shape,
// same values), isclose (elementwise, within tolerances) and allclose.
#pragma once
#include "nabla/core/tensor.h"

namespace nabla {

// True when a and b have the same shape and equal elements (compared in the
// dtype they promote to; NaN equals nothing, -0.0 equals 0.0). Different
// shapes give false, not an error, as torch.equal.
bool equal(const Tensor& a, const Tensor& b);
// |a - b| <= atol + rtol * |b| elementwise (a bool tensor of the broadcast
// shape), or a == b (so equal infinities are close); NaN is close to NaN only
// with equal_nan. a and b must have the same dtype (PyTorch's rule); bool
// inputs are compared as float32. rtol and atol must be >= 0.
Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-05, double atol = 1e-08, bool equal_nan = false);
// isclose(...).all(): every element close.
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-05, double atol = 1e-08, bool equal_nan = false);

}  // namespace nabla

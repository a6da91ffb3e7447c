// CPU kernels of pad: constant (any dims, negative pads crop) and the
// index-mapping modes reflect/replicate (last 1 or 2 dims) with their gradient.
#pragma once
#include <vector>

#include "nabla/core/scalar.h"
#include "nabla/core/tensor.h"
#include "nabla/ops/pad_mode.h"

namespace nabla::cpu {

using nabla::PadMode;  // ops/pad_mode.h

// lo[d], hi[d]: padding before/after dim d of x (one pair per dim of x).
void pad_constant(const Tensor& x, const Shape& lo, const Shape& hi, const Scalar& value, const Tensor& out);
// Reflect/replicate over the last k = lo.size() dims (1 or 2); lo/hi >= 0.
void pad_index(const Tensor& x, const Shape& lo, const Shape& hi, PadMode mode, const Tensor& out);
// The gradient of pad_index: out (x's shape) accumulates grad at the source
// of every padded position.
void pad_index_backward(const Tensor& grad, const Shape& lo, const Shape& hi, PadMode mode, const Tensor& out);

}  // namespace nabla::cpu

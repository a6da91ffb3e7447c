// CPU kernel of softmax and log_softmax along one dim.
#pragma once
#include "nabla/core/tensor.h"

namespace nabla::cpu {

// out = softmax(x, dim) (or log_softmax when `log`). out: contiguous, x's
// shape and dtype (float32/float64). A 0-dim x counts as one element.
void softmax(const Tensor& x, int64_t dim, bool log, const Tensor& out);

}  // namespace nabla::cpu

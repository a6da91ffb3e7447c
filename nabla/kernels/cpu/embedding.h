// CPU kernels of embedding (row lookup) and its gradient (row accumulation).
#pragma once
#include "nabla/core/tensor.h"

namespace nabla::cpu {

// out[..., :] = weight[indices[...], :]. indices int32/int64; weight 2-D.
// Throws nabla::Error naming `embedding` when an index is out of range.
void embedding(const Tensor& indices, const Tensor& weight, const Tensor& out);
// out [num_weights, D] = sum of grad rows [..., D] into the rows indices
// name; rows equal to padding_idx (>= 0) get nothing.
void embedding_backward(const Tensor& grad, const Tensor& indices, int64_t padding_idx, const Tensor& out);

}  // namespace nabla::cpu

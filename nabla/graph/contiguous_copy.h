// Copying a strided CPU value into a contiguous buffer, for the Session (the
// fused chains read their inputs contiguously). A transposed matrix — the
// usual case: the gradient of a Linear weight is a transposed product — is
// copied in square blocks, so that the reads along its columns stay in
// cache; anything else goes through copy_().
#pragma once
#include "nabla/core/tensor.h"

namespace nabla::graph {

// dst (contiguous, CPU, src's shape and dtype) = src.
void copy_to_contiguous(const Tensor& dst, const Tensor& src);

}  // namespace nabla::graph

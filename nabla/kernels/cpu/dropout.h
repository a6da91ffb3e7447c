// CPU kernel of dropout: draws the keep-mask from the Philox stream and
// applies it in one pass.
#pragma once
#include <cstdint>

#include "nabla/core/tensor.h"

namespace nabla::cpu {

// mask[i] = u_i < 1 - p and out[i] = mask[i] ? x[i] / (1 - p) : 0, where u_i is
// element i of the uniform double stream (seed, offset) laid out as
// nabla::rand lays it out (two elements per Philox counter), so the mask
// equals `rand(sizes, kFloat64) < 1 - p` drawn from the same generator state.
// out: x's shape and dtype; mask: bool.
void dropout(const Tensor& x, double p, uint64_t seed, uint64_t offset, const Tensor& out, const Tensor& mask);

}  // namespace nabla::cpu

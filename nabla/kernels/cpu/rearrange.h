// CPU kernels that move elements without looking at their values: cat
// (copies into slices of the output), flip and tril/triu. They work on any
// dtype, float16/bfloat16 included, by moving raw items.
#pragma once
#include "nabla/core/tensor.h"

namespace nabla::cpu {

// Copies each input into consecutive slices of `out` along dim.
void cat(std::span<const Tensor> inputs, int64_t dim, const Tensor& out);
// out = x with the order of elements reversed along each of `dims` (distinct, wrapped).
void flip(const Tensor& x, const Shape& dims, const Tensor& out);
// out = x with the elements above (lower = true: tril) or below (triu) the
// `diagonal`-th diagonal of the last two dims set to zero.
void triangle(const Tensor& x, int64_t diagonal, bool lower, const Tensor& out);

}  // namespace nabla::cpu

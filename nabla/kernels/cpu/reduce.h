// CPU reduction kernels. The input is viewed as [outer, inner] after moving
// reduced dims last (a copy only when that layout isn't already contiguous);
// each output element reduces one contiguous row.
#pragma once
#include "nabla/core/tensor.h"

namespace nabla::cpu {

enum class ReduceKind { Sum, Prod, Max, Min, All, Any };

// out: the reduced tensor (keepdim or not; only numel matters); dims sorted.
// float16/bfloat16 x and out are widened and rounded back inside the loops
// (the float32 kernel's arithmetic on the widened tensor of the same layout).
void reduce(const Tensor& x, const Shape& dims, ReduceKind kind, const Tensor& out);
// Values and int64 indices of max/min along one dim.
void arg_reduce(const Tensor& x, int64_t dim, bool is_max, const Tensor& values, const Tensor& indices);
// Inclusive scan along dim.
void scan(const Tensor& x, int64_t dim, bool is_prod, const Tensor& out);

}  // namespace nabla::cpu

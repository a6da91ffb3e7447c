// CPU kernels of the index-driven ops: gather/scatter along a dim (which also
// serve index_select/index_add through a broadcast index view), take,
// masked_select and one_hot. Indices are int64 (the ops cast int32) and are
// bounds-checked here, where their values are first read; errors name `op`.
#pragma once
#include <string_view>

#include "nabla/core/tensor.h"

namespace nabla::cpu {

// out[p] = x[p with p[dim] := index[p]] for every p in index's shape.
// index has x's number of dims (0 strides allowed); out has index's shape.
void gather(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out, std::string_view op);
// out[p with p[dim] := index[p]] = src[p] (or += with accumulate) for every p
// in index's shape; out already holds the input. A 0-dim src is one value for all.
void scatter(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src, bool accumulate,
             std::string_view op);
// out[p] = x.flatten()[index[p]], negative indices counting from the end.
void take(const Tensor& x, const Tensor& index, const Tensor& out);
// out (1-D) = the elements of x where mask (same shape, bool) is true, in row-major order.
void masked_select(const Tensor& x, const Tensor& mask, const Tensor& out);
// out[p, c] = (index[p] == c) as int64, for c in [0, num_classes).
void one_hot(const Tensor& index, int64_t num_classes, const Tensor& out);

}  // namespace nabla::cpu

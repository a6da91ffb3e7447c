// CPU kernels of sort and topk along one dim. Each row along the dim is sorted
// through a permutation of indices, so values and int64 indices come out
// together. NaN counts as larger than every number (PyTorch's order), and equal
// values keep their original order (stable), so results are deterministic.
#pragma once
#include "nabla/core/tensor.h"

namespace nabla::cpu {

void sort(const Tensor& x, int64_t dim, bool descending, const Tensor& values, const Tensor& indices);
// The k largest (or smallest) along dim; sorted = false returns them in the
// order they appear in x.
void topk(const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted, const Tensor& values,
          const Tensor& indices);

}  // namespace nabla::cpu

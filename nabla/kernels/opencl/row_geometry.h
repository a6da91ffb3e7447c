// A dense tensor seen as [outer, n, inner] around one dim: the shape every
// row-wise OpenCL kernel (softmax, arg-reductions, scans, sorts) takes, so
// that one program per dtype serves every rank and dim. Line g (of
// outer * inner) starts at (g / inner) * n * inner + g % inner and its
// elements are `inner` apart.
#pragma once
#include <cstdint>

#include "nabla/core/tensor.h"

namespace nabla::opencl {

struct RowGeometry {
  int64_t outer = 1, n = 1, inner = 1;
  // A 0-dim x is one line of one element.
  RowGeometry(const Tensor& x, int64_t dim) {
    for (int64_t d = 0; d < x.dim(); ++d) {
      if (d < dim) outer *= x.sizes()[d];
      else if (d == dim) n = x.sizes()[d];
      else inner *= x.sizes()[d];
    }
  }
  int64_t lines() const { return outer * inner; }
};

}  // namespace nabla::opencl

// A dense tensor seen as [outer, n, inner] around one dim: the shape every
// row-wise OpenCL kernel (softmax, arg-reductions, scans, sorts) takes, so
// that one program per dtype serves every rank and dim. Line g (of
// outer * inner) starts at (g / inner) * n * inner + g % inner and its
// elements are `inner` apart.
#pragma once
#include <cstdint>
#include <string>

#include "nabla/core/tensor.h"

namespace nabla::accel {

struct RowGeometry {
  int64_t outer = 1, n = 1, inner = 1;
  // A 0-dim x is one line of one element.
  RowGeometry(const Tensor& x, int64_t dim) {
    for (int64_t d = 0; d < x.dim(); ++d) {
      if (d < dim)
        outer *= x.sizes()[d];
      else if (d == dim)
        n = x.sizes()[d];
      else
        inner *= x.sizes()[d];
    }
  }
  int64_t lines() const { return outer * inner; }
};

// `body` after the NB_T_IS_FLOAT define that the row kernels' sources test
// (device/row_reduce.h, device/sort.h): NaN's test exists for floats only.
inline std::string with_float_flag(DType t, const char* body) {
  return std::string("#define NB_T_IS_FLOAT ") + (is_floating(t) ? "1\n" : "0\n") + body;
}

}  // namespace nabla::accel

// The geometry of a 2-D pooling window, computed (and checked) from the
// pooling ops' attributes: the op definitions (ops/pool_ops.cpp) infer shapes
// with it and every backend's kernels run on it.
#pragma once
#include <cstdint>
#include <string_view>

#include "nabla/core/tensor.h"
#include "nabla/ops/attrs.h"

namespace nabla {

struct Pool2dGeometry {
  int64_t planes = 0;  // N * C
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_h = 0, pad_w = 0;
  int64_t dilation_h = 1, dilation_w = 1;
};

// max_pool2d's attrs: kernel_size, stride, padding, dilation, ceil_mode;
// `sizes` is the input's shape.
Pool2dGeometry max_geometry(std::string_view op, const Shape& sizes, const Attrs& a);
// avg_pool2d's attrs from index `at` on: kernel_size, stride, padding,
// ceil_mode, count_include_pad, divisor_override.
Pool2dGeometry avg_geometry(std::string_view op, const Shape& sizes, const Attrs& a, std::size_t at);
// The planes of a backward op: input planes [N, C, H, W] (`in_sizes`), output
// planes those of `out` (the gradient or the indices); no window.
Pool2dGeometry plane_geometry(const Shape& in_sizes, const Tensor& out);

}  // namespace nabla

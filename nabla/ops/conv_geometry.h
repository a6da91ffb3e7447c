// The geometry of a 2-D convolution, computed (and checked) from conv2d's,
// conv_transpose2d's or conv2d_weight_grad's inputs and attributes: the op
// definitions (ops/conv_ops.cpp) infer shapes with it and every backend's
// kernels run on it (kernels/cpu/conv.h explains the terms).
#pragma once
#include <cstdint>
#include <string_view>

#include "nabla/core/tensor.h"
#include "nabla/ops/attrs.h"

namespace nabla {

struct Conv2dGeometry {
  int64_t batch = 0;
  int64_t in_channels = 0, in_h = 0, in_w = 0;     // the side the window slides over
  int64_t out_channels = 0, out_h = 0, out_w = 0;  // one value per window position
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_h = 0, pad_w = 0;
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t groups = 1;
};

// attrs: stride, padding, dilation, groups; ws: the weight's shape.
Conv2dGeometry conv2d_geometry(std::string_view op, const Tensor& x, const Shape& ws, const Attrs& a);
// attrs: stride, padding, output_padding, groups, dilation; in conv2d's terms
// (conv_transpose2d is conv2d's input gradient).
Conv2dGeometry conv_transpose2d_geometry(std::string_view op, const Tensor& x, const Tensor& w, const Attrs& a);
// attrs: weight_sizes, stride, padding, dilation, groups; gy: grad_output.
Conv2dGeometry weight_grad_geometry(std::string_view op, const Tensor& x, const Tensor& gy, const Attrs& a);

}  // namespace nabla

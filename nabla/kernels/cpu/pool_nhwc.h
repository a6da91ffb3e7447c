// Max pooling over channels-last tensors (NHWC in memory): the loops run over
// the contiguous channels of each pixel, so a channels-last CNN pools without
// copying its activations to NCHW and back. Same results as pool.h's NCHW
// kernels (indices h * W + w within the plane, -inf and -1 for an empty
// window, the last NaN of a window wins); bfloat16 compares and sums in
// float32 and rounds back, the float32 path's results. The tensors are
// [N, C, H, W] with channels-last strides (ops/memory_format_rules.h makes
// the outputs so).
#pragma once
#include "nabla/kernels/cpu/pool.h"

namespace nabla::cpu {

void max_pool2d_forward_nhwc(const Tensor& x, const Tensor& values, const Tensor& indices, const Pool2dGeometry& g);
// gx[n, indices[n, c, p], c] += gy[n, c, p]; gx, gy and indices channels-last.
void max_pool2d_backward_nhwc(const Tensor& gy, const Tensor& indices, const Tensor& gx, const Pool2dGeometry& g);

}  // namespace nabla::cpu

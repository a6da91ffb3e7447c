// CPU kernels for 2-D pooling over [N, C, H, W] tensors: max (with int64
// argmax indices), average and adaptive average, and their backward passes.
// Every kernel works plane by plane (one (n, c) pair), split across the
// thread pool, so planes never share memory and need no locks.
#pragma once
#include <cstdint>

#include "nabla/core/tensor.h"
#include "nabla/ops/pool_geometry.h"

namespace nabla::cpu {

using nabla::Pool2dGeometry;  // ops/pool_geometry.h

// values/indices [N, C, OH, OW] (contiguous); padding counts as -inf. An
// index is h * W + w within the plane; a window with no element gets -inf
// and index -1.
void max_pool2d_forward(const Tensor& x, const Tensor& values, const Tensor& indices, const Pool2dGeometry& g);
// gx[plane, indices[plane, p]] += gy[plane, p]; gx is [N, C, H, W] (contiguous).
void max_pool2d_backward(const Tensor& gy, const Tensor& indices, const Tensor& gx, const Pool2dGeometry& g);
// bfloat16, the float32 path's results bit for bit (max and the scatter
// into zeros are exact on widened bfloat16s; a NaN gets its quiet bit, as
// rounding back gives it): the backward takes any geometry (2x2 blocks on
// AVX-512, else a float32 scatter per plane, rounded back), the forward only
// where max_pool2d_forward_takes_bf16(g): 2x2 windows with stride_w 2, all
// inside the plane (no padding reached, floor mode), on an AVX-512 CPU.
// Other bfloat16 and all float16 pools go through float32 (pool_ops.cpp).
bool max_pool2d_forward_takes_bf16(const Pool2dGeometry& g);

// out[plane, p] = src[plane, indices[plane, p]] (the adjoint of the above).
void max_pool2d_gather(const Tensor& src, const Tensor& indices, const Tensor& out, const Pool2dGeometry& g);

struct AvgPoolOptions {
  bool count_include_pad = true;
  int64_t divisor_override = 0;  // 0: none
};
void avg_pool2d_forward(const Tensor& x, const Tensor& out, const Pool2dGeometry& g, AvgPoolOptions o);
void avg_pool2d_backward(const Tensor& gy, const Tensor& gx, const Pool2dGeometry& g, AvgPoolOptions o);

// Output cell (i, j) averages rows [floor(i*H/OH), ceil((i+1)*H/OH)) and the
// same for columns (PyTorch's adaptive windows).
void adaptive_avg_pool2d_forward(const Tensor& x, const Tensor& out, const Pool2dGeometry& g);
void adaptive_avg_pool2d_backward(const Tensor& gy, const Tensor& gx, const Pool2dGeometry& g);

}  // namespace nabla::cpu

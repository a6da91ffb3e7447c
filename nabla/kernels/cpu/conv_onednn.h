// float32 2-D convolution through oneDNN's convolution primitives (forward,
// backward data, backward weights): oneDNN's direct JIT kernels run on blocked
// layouts (nChw16c), about 2x faster than im2col + sgemm on the mid-size
// layers of a small CNN (bench/README.md).
//
// Each function returns false, without touching `out`, when the case is not
// one it handles (not float32, an empty tensor, a geometry oneDNN rejects);
// the caller then runs the im2col kernels of conv.cpp, which stay the
// reference. Arguments are exactly those of the conv.h kernel of the same role.
//
// Primitives are cached per geometry in a process-wide cache behind a mutex;
// the user tensors are reordered into and out of oneDNN's chosen layouts on
// every call (buffers from nabla's caching allocator). oneDNN runs with one
// OpenMP thread and nabla's threads each take a slice of the batch
// (omp_single.h says why); a batch smaller than the thread count runs as one
// call on OpenMP's threads.
#pragma once
#include "nabla/kernels/cpu/conv.h"

namespace nabla::cpu {

bool onednn_conv2d_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& out,
                           const Conv2dGeometry& g);
// The same convolution with ReLU applied to its output (oneDNN's eltwise_relu
// post-op: one pass, no second read of out). conv2d_relu's kernel.
bool onednn_conv2d_relu_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& out,
                                const Conv2dGeometry& g);
bool onednn_conv_transpose2d_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& out,
                                     const Conv2dGeometry& g);
bool onednn_conv2d_weight_grad(const Tensor& x, const Tensor& gy, const Tensor& gw, const Conv2dGeometry& g);

// Number of cached primitive sets (for tests).
int64_t onednn_conv_cache_size();

}  // namespace nabla::cpu

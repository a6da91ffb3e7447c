// Direct conv2d kernels for layers with few input taps per output position
// (C * KH * KW <= kMaxSmallConvTaps, groups == 1): a network's first layer
// on one-channel (grayscale) images.
//
// oneDNN runs such layers on its blocked layout (nChw16c), so an NCHW output
// is reordered after the forward primitive and an NCHW output gradient before
// the weight-gradient one; for the Fashion-MNIST CNN's conv(1->32, 3x3) on
// [64, 1, 28, 28] the two reorders took as long as the convolutions (0.4 and
// 0.55 ms against 0.35 and 0.31 ms at 1 thread). These kernels read and write
// NCHW tensors as they are: per sample and band of
// output rows, the C*KH*KW shifted copies of the input ("columns", at most
// 32 KiB, in L1) feed register-blocked loops (GCC vector extensions, 64-byte
// vectors: AVX-512 with -march=native) that write each output once, with the
// bias and the ReLU applied in registers, or accumulate the weight gradient
// over the batch in vector registers.
//
// float32 and float64 (the gradcheck dtype) both run here; sums come out in
// a different order than the im2col + GEMM kernels', so results agree to
// rounding. conv.cpp routes to them while the fast path is on
// (conv_onednn_enabled()); switched off, the im2col kernels run.
#pragma once
#include <cstdint>

#include "nabla/core/tensor.h"
#include "nabla/ops/conv_geometry.h"

namespace nabla::cpu {

// The largest C * KH * KW these kernels take: one channel at 3x3. Measured
// against oneDNN (its primitive plus reorders) at 1 thread, [N, C, 28, 28]
// -> 32 channels, 3x3, padding 1, each op alone (warm caches): with C = 1
// (9 taps, N = 64) 0.39-0.41 against 0.53 ms forward (conv2d_relu) and
// 0.40 against 0.51-0.54 ms for the weight gradient; with C = 2 and 3 (18
// and 27 taps, N = 16) oneDNN's blocked kernels were faster for the weight
// gradient (0.19 against 0.26-0.31 ms, 0.25 against 0.49 ms) and at C = 3
// forward too, so those stay there.
inline constexpr int64_t kMaxSmallConvTaps = 9;

// Whether the kernels below take a convolution of this geometry and dtype
// (float32/float64, groups 1, C * KH * KW <= kMaxSmallConvTaps).
bool small_conv_applies(const Conv2dGeometry& g, DType dtype);

// out = conv2d(x, w) + bias, then ReLU (NaN kept, as relu()) when `relu`.
// x: any strides; out: contiguous (NCHW). Returns false, out untouched,
// where the kernel does not apply (small_conv_applies) and for a
// channels-last output (operands with several channels in NHWC), which
// oneDNN's NHWC kernels computed faster than a tile over [positions, OC].
bool small_conv2d_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& out,
                          const Conv2dGeometry& g, bool relu);

// gw (contiguous [OC, C, KH, KW]) = conv2d's weight gradient for x (any
// strides) and the output gradient gy [N, OC, out_h, out_w] (contiguous; of
// other strides, copied). False, gw untouched, where the kernel does not
// apply (small_conv_applies) and for a channels-last gy, which oneDNN's NHWC
// kernels took faster.
bool small_conv2d_weight_grad(const Tensor& x, const Tensor& gy, const Tensor& gw, const Conv2dGeometry& g);

}  // namespace nabla::cpu

// CPU kernels for 2-D convolution. Convolutions with at most 9 input taps
// (a one-channel first layer, float32 and float64) run direct kernels
// (conv_small.h); other float32 ones go to oneDNN's convolution primitives
// (conv_onednn.h) where oneDNN takes the geometry; everything else (float64,
// geometries oneDNN rejects, or the fast path switched off) runs im2col +
// GEMM (oneDNN sgemm / OpenBLAS dgemm), described below.
//
// All three kernels describe one convolution by its Conv2dGeometry, always in
// conv2d's terms: "input" is the side the kernel window slides over, "output"
// is the side with one value per window position. conv_transpose2d is
// conv2d's input gradient, so its own input is the geometry's output side.
//
// Samples are processed in blocks: im2col fills the columns of every sample
// of a block side by side ([C*KH*KW, block*OH*OW]) on nabla::parallel_for
// over (sample, channel); the block is capped so the buffer stays ~32 MiB.
// The GEMMs then run per sample and group, reading the columns with a row
// pitch and writing straight into the output, so no repacking pass is needed
// for contiguous tensors (measured faster than one GEMM per block plus the
// copies it needs; the weight gradient of small planes is the exception, see
// kSmallPlane). BLAS threads each GEMM itself.
#pragma once
#include <cstdint>

#include "nabla/core/tensor.h"
#include "nabla/ops/conv_geometry.h"

namespace nabla::cpu {

using nabla::Conv2dGeometry;  // ops/conv_geometry.h

// out[N, OC, OH, OW] (contiguous) = conv2d(x, w) + bias.
// x: [N, C, H, W], any strides (an NHWC view works without a copy);
// w: [OC, C/groups, KH, KW]; bias: [OC] or undefined.
void conv2d_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& out,
                    const Conv2dGeometry& g);

// out[N, C, H, W] (contiguous) = conv_transpose2d(x, w) + bias, i.e. the
// input-gradient of conv2d applied to x. x: [N, OC, OH, OW], any strides;
// w: [OC, C/groups, KH, KW]; bias: [C] or undefined. Positions no window
// reaches (output_padding rows) get only the bias.
void conv_transpose2d_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& out,
                              const Conv2dGeometry& g);

// gw[OC, C/groups, KH, KW] (contiguous) = the weight gradient of conv2d(x, .)
// for the output gradient gy [N, OC, out_h, out_w] (any strides). out_h/out_w
// may be smaller than the convolution's natural output: the missing rows and
// columns count as zero gradient.
void conv2d_weight_grad(const Tensor& x, const Tensor& gy, const Tensor& gw, const Conv2dGeometry& g);

// Whether convolutions may use oneDNN's primitives and the direct kernels
// of conv_small.h (default on; the environment variable NABLA_CONV_ONEDNN=0
// turns it off at start-up). Off, every convolution runs the im2col kernels: tests compare the two paths, and
// benchmarks can measure the difference. Process-wide; not meant to be
// flipped while other threads run convolutions.
void set_conv_onednn_enabled(bool on);
bool conv_onednn_enabled();

}  // namespace nabla::cpu

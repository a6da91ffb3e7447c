// Convolution and pooling (torch.nn.functional semantics and defaults).
//
// Layout: tensors are NCHW ([N, C, H, W]; conv1d: [N, C, L]); an unbatched
// input ([C, H, W] / [C, L]) is accepted like PyTorch and gives an unbatched
// result. NHWC input goes through the separate entry point conv2d_nhwc (a
// strided view on the same kernels, no copy of the input). Weights are always
// [out_channels, in_channels / groups, KH, KW] (conv_transpose2d:
// [in_channels, out_channels / groups, KH, KW]), as in PyTorch.
//
// Float operands of different dtypes are promoted to the wider one (PyTorch
// raises instead); float16/bfloat16 are computed in float32.
//
// Size arguments take one value (used for both spatial dims) or one per dim.
// An empty `stride` for the pools means "= kernel_size".
#pragma once
#include <utility>

#include "nabla/core/tensor.h"

namespace nabla {

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(), IntList stride = {1},
              IntList padding = {0}, IntList dilation = {1}, int64_t groups = 1);
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(), IntList stride = {1, 1},
              IntList padding = {0, 0}, IntList dilation = {1, 1}, int64_t groups = 1);
// relu(conv2d(...)) as one op: on the CPU one pass (oneDNN's ReLU post-op for
// float32), so the convolution's output is never read again; the gradient
// takes ReLU's mask from the output (0 where it is <= 0). The graph pass
// graph::fuse_conv_relu makes it from conv2d -> relu in compiled graphs, and
// nn::Sequential from a Conv2d followed by a ReLU. (PyTorch: torch.ao's
// ConvReLU2d.)
Tensor conv2d_relu(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(), IntList stride = {1, 1},
                   IntList padding = {0, 0}, IntList dilation = {1, 1}, int64_t groups = 1);
// input [N, H, W, C] -> output [N, OH, OW, OC]; weight and bias as in conv2d.
Tensor conv2d_nhwc(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(),
                   IntList stride = {1, 1}, IntList padding = {0, 0}, IntList dilation = {1, 1},
                   int64_t groups = 1);
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(),
                        IntList stride = {1, 1}, IntList padding = {0, 0}, IntList output_padding = {0, 0},
                        int64_t groups = 1, IntList dilation = {1, 1});
// The weight gradient of conv2d: d/dw <grad_output, conv2d(input, w)>, for a
// weight of `weight_sizes`. grad_output may be smaller (spatially) than the
// convolution's output; the missing positions count as zero.
Tensor conv2d_weight_grad(const Tensor& input, const Tensor& grad_output, IntList weight_sizes,
                          IntList stride = {1, 1}, IntList padding = {0, 0}, IntList dilation = {1, 1},
                          int64_t groups = 1);

Tensor max_pool2d(const Tensor& input, IntList kernel_size, IntList stride = {}, IntList padding = {0},
                  IntList dilation = {1}, bool ceil_mode = false);
// (values, indices): indices are int64 positions in each input plane
// (h * W + w), as torch's return_indices=True.
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntList kernel_size, IntList stride = {},
                                                  IntList padding = {0}, IntList dilation = {1},
                                                  bool ceil_mode = false);
// divisor_override 0: none.
Tensor avg_pool2d(const Tensor& input, IntList kernel_size, IntList stride = {}, IntList padding = {0},
                  bool ceil_mode = false, bool count_include_pad = true, int64_t divisor_override = 0);
Tensor adaptive_avg_pool2d(const Tensor& input, IntList output_size);

// Backward primitives of the pools (what their gradient rules call; public so
// that they can be tested and differentiated on their own). All take 4-D
// tensors. max_pool2d_gather is the adjoint of max_pool2d_backward:
// out[n, c, p] = source[n, c, indices[n, c, p]].
Tensor max_pool2d_backward(const Tensor& grad_output, const Tensor& indices, IntList input_sizes);
Tensor max_pool2d_gather(const Tensor& source, const Tensor& indices);
Tensor avg_pool2d_backward(const Tensor& grad_output, IntList input_sizes, IntList kernel_size, IntList stride = {},
                           IntList padding = {0}, bool ceil_mode = false, bool count_include_pad = true,
                           int64_t divisor_override = 0);
Tensor adaptive_avg_pool2d_backward(const Tensor& grad_output, IntList input_sizes);

}  // namespace nabla

// oneDNN on the CPU, in the spirit of torch.backends.mkldnn: float32 and
// bfloat16 convolutions (conv2d, conv_transpose2d, conv2d_weight_grad, so
// conv1d and every gradient of them) run through oneDNN's JIT primitives
// where it has one for the shape, else as im2col + GEMM (which stays the
// reference: both compute the same convolution, to rounding).
#pragma once
#include <cstdint>

namespace nabla::onednn {

// Whether CPU convolutions may use oneDNN: true unless the environment
// variable NABLA_CONV_ONEDNN is 0 at start-up. Process-wide; not meant to be
// flipped while other threads run convolutions.
bool enabled();
void set_enabled(bool on);

// Winograd convolutions (on by default). A float32 convolution that oneDNN
// can run as Winograd F(4x4, 3x3) (3x3 kernel, stride 1, no dilation,
// groups 1, on a CPU with AVX-512) and where that is faster (at least 16
// input and output channels, an output plane of at least 7x7) runs that way
// in all three passes: forward, input gradient and weight gradient. It needs
// 2.25x fewer multiplications: ResNet-18's 3x3 layers ran 1.4-2.2x faster,
// the Fashion-MNIST CNN's training step ~1.2x (docs/tensors.md). It rounds
// differently from the direct convolution: 1.1-1.4e-6 of the largest
// magnitude against the direct path's 0.3-0.8e-6 on that CNN's second layer
// (tests/ops/conv_winograd_test.cpp), so results are not bit-identical with
// nabla's direct path or PyTorch's (which runs direct convolutions on the
// CPU; cuDNN's heuristics pick Winograd on GPUs). Other shapes, float64,
// bfloat16 and CPUs without AVX-512 keep the direct convolution.
// set_winograd(false), or the environment variable NABLA_WINOGRAD=0 at
// start-up, gives the direct path everywhere. Process-wide; not meant to be
// flipped while other threads run convolutions.
bool winograd();
void set_winograd(bool on);

// How many oneDNN convolution calls (one per pass per batch slice) ran each
// algorithm since the process started; a shape asked for Winograd that
// oneDNN cannot run so counts as direct.
struct ConvCounts {
  int64_t direct = 0, winograd = 0;
};
ConvCounts conv_counts();

}  // namespace nabla::onednn

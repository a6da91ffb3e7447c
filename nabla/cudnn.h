// cuDNN on CUDA devices (docs/devices.md, "CUDA"), in the spirit of
// torch.backends.cudnn: convolutions on a CUDA device (conv2d,
// conv_transpose2d, conv2d_weight_grad, and so conv1d and every gradient of
// them) run through cuDNN where it can be loaded and is enabled, else as
// im2col + cuBLAS. cuDNN (libcudnn.so.9) is opened with dlopen at the first
// convolution or the first call below, never linked: nabla works without it.
#pragma once
#include <cstdint>
#include <string>

namespace nabla::cuda::cudnn {

// Whether cuDNN can be loaded (libcudnn.so.9 and its convolution library);
// no GPU is needed to answer.
bool is_available();
// cudnnGetVersion() of the loaded cuDNN (91900 for 9.19.0); 0 when not available.
int version();
// Why cuDNN cannot be used, in one sentence ("nabla was built without CUDA
// ...", "cuDNN could not be loaded: libcudnn.so.9: cannot open shared object
// file ..."); empty when it can.
std::string unavailable_reason();

// Whether convolutions on CUDA devices use cuDNN when it is available: true
// unless the environment variable NABLA_CUDNN is 0 when the process first
// asks; set_enabled switches it for the calls that follow (both paths
// compute the same convolution, to rounding).
bool enabled();
void set_enabled(bool on);

// torch.backends.cudnn.benchmark: when on, the first call of each
// convolution shape (pass, dtype, sizes, stride, padding, dilation, groups,
// per device) times every algorithm cuDNN's heuristics offer and im2col +
// cuBLAS on the device (the best of 3 runs after one to warm up, host clock
// around a stream synchronize: launch costs count) and keeps the fastest for
// that shape; later calls of the shape run it with no timing. Off (the
// default, as in PyTorch: the first calls cost more, and which algorithm wins
// may differ from run to run, so results may differ at rounding), cuDNN runs
// the first algorithm its heuristics rank. On when the environment variable
// NABLA_CUDNN_BENCHMARK is 1 when the process first asks. A shape first seen
// while a CUDA graph is being captured takes the heuristic choice (a capture
// cannot wait for the device).
bool benchmark();
void set_benchmark(bool on);

// The path CUDA convolutions take now, in one line: "cuDNN 9.19.0" or
// "im2col + cuBLAS (<why not cuDNN>)".
std::string conv_path();

// How many convolution calls on CUDA devices ran through cuDNN and how many
// as im2col + cuBLAS (cuDNN off or absent, a shape it cannot express or has
// no algorithm for) since the process started.
// `benchmarked` counts the shapes timed in benchmark mode and `im2col_won`
// those of them where im2col + cuBLAS was the fastest.
struct ConvCounts {
  int64_t cudnn = 0, im2col = 0;
  int64_t benchmarked = 0, im2col_won = 0;
};
ConvCounts conv_counts();

}  // namespace nabla::cuda::cudnn

namespace nabla::cuda::detail {
// Called by libnabla_cuda's convolution kernels, once per call.
void count_conv(bool through_cudnn);
// Called once per shape timed in benchmark mode.
void count_benchmark(bool im2col_won);
}  // namespace nabla::cuda::detail

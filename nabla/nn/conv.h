// Convolution layers (torch.nn.Conv1d, Conv2d, ConvTranspose2d) with PyTorch's
// default initialization: weight kaiming_uniform_(a = sqrt(5)), i.e.
// U(±1/sqrt(fan_in)), bias U(±1/sqrt(fan_in)), where fan_in is computed from
// the weight's dims 1.. as in PyTorch (for ConvTranspose2d that is
// out_channels / groups * kh * kw, PyTorch's choice too).
//
// 2-D size arguments are Size2: one int for both dims or {h, w}. Only zero
// padding (padding_mode "zeros") is available.
#pragma once
#include <cstdint>
#include <string>

#include "nabla/nn/module.h"
#include "nabla/nn/size2.h"

namespace nabla::nn {

// Input [N, C, L] or unbatched [C, L]; weight [out, in / groups, k], bias [out].
class Conv1d : public Module {
 public:
  Conv1d(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride = 1, int64_t padding = 0,
         int64_t dilation = 1, int64_t groups = 1, bool bias = true);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  void reset_parameters();

  int64_t in_channels, out_channels, kernel_size, stride, padding, dilation, groups;
  Tensor weight, bias;  // bias undefined when constructed with bias = false
};

// Input [N, C, H, W] or unbatched [C, H, W]; weight [out, in / groups, kh, kw].
// data_format "NHWC" (Keras's argument): input [N, H, W, C] or [H, W, C] and
// output NHWC, run on oneDNN's NHWC kernels without copies (the weight keeps
// PyTorch's [out, in, kh, kw]); docs/nn.md.
class Conv2d : public Module {
 public:
  Conv2d(int64_t in_channels, int64_t out_channels, Size2 kernel_size, Size2 stride = 1, Size2 padding = 0,
         Size2 dilation = 1, int64_t groups = 1, bool bias = true, const std::string& data_format = "NCHW");
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  void reset_parameters();

  int64_t in_channels, out_channels;
  Size2 kernel_size, stride, padding, dilation;
  int64_t groups;
  std::string data_format;  // "NCHW" or "NHWC"
  Tensor weight, bias;
};

// The adjoint of Conv2d ("deconvolution"): weight [in, out / groups, kh, kw].
// output_padding adds rows/columns on the bottom/right of the output (to pick
// among the input sizes that a strided Conv2d maps to one size); it must be
// smaller than stride or dilation. Argument order as in PyTorch.
class ConvTranspose2d : public Module {
 public:
  ConvTranspose2d(int64_t in_channels, int64_t out_channels, Size2 kernel_size, Size2 stride = 1, Size2 padding = 0,
                  Size2 output_padding = 0, int64_t groups = 1, bool bias = true, Size2 dilation = 1);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  void reset_parameters();

  int64_t in_channels, out_channels;
  Size2 kernel_size, stride, padding, output_padding;
  int64_t groups;
  Size2 dilation;
  Tensor weight, bias;
};

}  // namespace nabla::nn

// 2-D pooling layers (torch.nn.MaxPool2d, AvgPool2d, AdaptiveAvgPool2d) over
// the pool ops. Input [N, C, H, W] or unbatched [C, H, W]. Size arguments are
// Size2 (one int or {h, w}); a stride left out (std::nullopt) equals
// kernel_size, as PyTorch's stride=None. data_format "NHWC" (Keras's
// argument): input [N, H, W, C] or [H, W, C], output NHWC.
#pragma once
#include <optional>
#include <string>

#include "nabla/nn/module.h"
#include "nabla/nn/size2.h"

namespace nabla::nn {

// Max over each window. padding pads with -inf and must be at most half the
// (dilated) kernel. return_indices is not a constructor flag here: call
// nabla::max_pool2d_with_indices for the indices.
class MaxPool2d : public Module {
 public:
  explicit MaxPool2d(Size2 kernel_size, std::optional<Size2> stride = std::nullopt, Size2 padding = 0,
                     Size2 dilation = 1, bool ceil_mode = false, const std::string& data_format = "NCHW");
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Size2 kernel_size, stride, padding, dilation;
  bool ceil_mode;
  std::string data_format;  // "NCHW" or "NHWC"
};

// Mean over each window; count_include_pad counts padded zeros in the
// divisor; divisor_override (> 0) replaces the divisor.
class AvgPool2d : public Module {
 public:
  explicit AvgPool2d(Size2 kernel_size, std::optional<Size2> stride = std::nullopt, Size2 padding = 0,
                     bool ceil_mode = false, bool count_include_pad = true,
                     std::optional<int64_t> divisor_override = std::nullopt, const std::string& data_format = "NCHW");
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Size2 kernel_size, stride, padding;
  bool ceil_mode, count_include_pad;
  std::optional<int64_t> divisor_override;
  std::string data_format;  // "NCHW" or "NHWC"
};

// Mean over adaptive windows that tile the input into output_size cells.
// (PyTorch's None entries, "keep this input size", are not supported.)
class AdaptiveAvgPool2d : public Module {
 public:
  explicit AdaptiveAvgPool2d(Size2 output_size, const std::string& data_format = "NCHW");
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  Size2 output_size;
  std::string data_format;  // "NCHW" or "NHWC"
};

}  // namespace nabla::nn

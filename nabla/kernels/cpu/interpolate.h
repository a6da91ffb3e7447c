// CPU kernels of 2-D resampling on NCHW tensors (nearest and bilinear) and
// their gradients.
#pragma once
#include "nabla/core/tensor.h"

namespace nabla::cpu {

// How output positions map to input positions, per axis. scale_h/scale_w
// are the user's scale factors (output / input), or <= 0 when the output size
// was given instead; as in PyTorch they then set the step instead of in/out.
struct ResampleSpec {
  bool bilinear = false;
  bool align_corners = false;
  double scale_h = 0, scale_w = 0;
};

// out [N, C, OH, OW] from x [N, C, H, W].
void resample2d(const Tensor& x, const ResampleSpec& spec, const Tensor& out);
// out [N, C, H, W] accumulates grad [N, C, OH, OW] through the same map.
void resample2d_backward(const Tensor& grad, const ResampleSpec& spec, const Tensor& out);

}  // namespace nabla::cpu

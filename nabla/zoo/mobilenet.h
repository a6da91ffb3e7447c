// MobileNetV2 (Sandler et al. 2018) as torchvision.models.mobilenet_v2
// builds it, with its parameter names (features.0.0.weight,
// features.1.conv.0.0.weight, features.2.conv.3.running_var,
// classifier.1.weight, ...):
//   features.0       Conv 3x3/2 (3 -> 32) BatchNorm ReLU6       (a "conv-norm-activation": children 0, 1, 2)
//   features.1..17   InvertedResidual blocks, settings (t, c, n, s) =
//                    (1,16,1,1) (6,24,2,2) (6,32,3,2) (6,64,4,2) (6,96,3,1) (6,160,3,2) (6,320,1,1)
//   features.18      Conv 1x1 (320 -> 1280) BatchNorm ReLU6
//   adaptive average pooling to 1x1, flatten
//   classifier       Dropout(0.2) Linear(1280, num_classes)
// Channels are scaled by width_mult and rounded to multiples of 8 as
// torchvision's _make_divisible. Input [N, in_channels, H, W] (any H, W >= 32;
// 224 for ImageNet); logits [N, num_classes]. Initialization as torchvision's:
// conv kaiming_normal_ (fan_out), BatchNorm ones/zeros, Linear N(0, 0.01^2).
#pragma once
#include <memory>

#include "nabla/nn/sequential.h"
#include "nabla/zoo/options.h"

namespace nabla::zoo {

// expand 1x1 (when expand_ratio != 1) -> depthwise 3x3 (strided) -> project
// 1x1 + BatchNorm, with a residual connection when stride is 1 and
// inp == oup. `conv` is torchvision's Sequential of those.
class InvertedResidual : public nn::Module {
 public:
  InvertedResidual(int64_t inp, int64_t oup, int64_t stride, int64_t expand_ratio);
  Tensor forward(const Tensor& x) override;

  std::shared_ptr<nn::Sequential> conv;
  bool use_res_connect;
};

class MobileNetV2 : public nn::Module {
 public:
  explicit MobileNetV2(const ModelOptions& options = {});
  Tensor forward(const Tensor& x) override;

  std::shared_ptr<nn::Sequential> features;
  std::shared_ptr<nn::Sequential> classifier;
};

std::shared_ptr<MobileNetV2> mobilenet_v2(const ModelOptions& options = {});

}  // namespace nabla::zoo

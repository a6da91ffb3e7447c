// LeNet-5 (LeCun et al. 1998) in its common modern form (ReLU and max
// pooling instead of the paper's scaled tanh and trainable subsampling), for
// 28x28 images such as MNIST / Fashion-MNIST (the first conv pads by 2, so the
// paper's 32x32 geometry follows). torchvision has no LeNet; the names follow
// its VGG's pattern (features.0.weight, classifier.4.bias):
//   features    Conv2d(in_channels, 6, 5, padding 2) ReLU MaxPool2d(2) Conv2d(6, 16, 5) ReLU MaxPool2d(2)
//   classifier  Linear(16*5*5, 120) ReLU Linear(120, 84) ReLU Linear(84, num_classes)
// Input [N, in_channels, 28, 28] (default 1 channel); logits [N, num_classes]
// (default 10). Layers keep PyTorch's default initialization.
#pragma once
#include <memory>

#include "nabla/nn/sequential.h"
#include "nabla/zoo/options.h"

namespace nabla::zoo {

class LeNet5 : public nn::Module {
 public:
  explicit LeNet5(const ModelOptions& options = {});
  Tensor forward(const Tensor& x) override;

  std::shared_ptr<nn::Sequential> features;
  std::shared_ptr<nn::Sequential> classifier;
};

std::shared_ptr<LeNet5> lenet5(const ModelOptions& options = {});

}  // namespace nabla::zoo

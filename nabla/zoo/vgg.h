// VGG (Simonyan & Zisserman 2014) as torchvision.models.vgg builds it, with
// its parameter names (features.0.weight, classifier.6.bias, ...):
//   features    3x3 convs (padding 1, bias) [+ BatchNorm2d] + ReLU, MaxPool2d(2) between stages
//   avgpool     AdaptiveAvgPool2d(7)
//   classifier  Linear(512*7*7, 4096) ReLU Dropout Linear(4096, 4096) ReLU Dropout Linear(4096, num_classes)
// Input [N, in_channels, H, W] with H, W >= 32 (five 2x2 poolings); logits
// [N, num_classes]. Initialization as torchvision's: conv kaiming_normal_
// (fan_out, relu) with zero bias, BatchNorm ones/zeros, Linear N(0, 0.01^2)
// with zero bias.
#pragma once
#include <memory>
#include <vector>

#include "nabla/nn/pooling.h"
#include "nabla/nn/sequential.h"
#include "nabla/zoo/options.h"

namespace nabla::zoo {

class VGG : public nn::Module {
 public:
  // `config`: output channels of each conv, 0 for a 2x2 max pooling
  // (torchvision's cfgs with 0 for "M").
  VGG(const std::vector<int64_t>& config, bool batch_norm, const ModelOptions& options = {});
  Tensor forward(const Tensor& x) override;

  std::shared_ptr<nn::Sequential> features;
  std::shared_ptr<nn::AdaptiveAvgPool2d> avgpool;
  std::shared_ptr<nn::Sequential> classifier;
};

std::shared_ptr<VGG> vgg11(const ModelOptions& options = {});
std::shared_ptr<VGG> vgg11_bn(const ModelOptions& options = {});
std::shared_ptr<VGG> vgg13(const ModelOptions& options = {});
std::shared_ptr<VGG> vgg13_bn(const ModelOptions& options = {});
std::shared_ptr<VGG> vgg16(const ModelOptions& options = {});
std::shared_ptr<VGG> vgg16_bn(const ModelOptions& options = {});
std::shared_ptr<VGG> vgg19(const ModelOptions& options = {});
std::shared_ptr<VGG> vgg19_bn(const ModelOptions& options = {});

}  // namespace nabla::zoo

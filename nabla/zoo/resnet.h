// ResNet (He et al. 2015) as torchvision.models.resnet builds it (v1.5: a
// Bottleneck strides in its 3x3 conv), with its parameter names
// (conv1.weight, layer1.0.conv1.weight, layer2.0.downsample.1.running_mean,
// fc.bias, ...):
//   conv1 7x7/2 (no bias) bn1 relu maxpool 3x3/2
//   layer1..layer4  BasicBlock (resnet18, 34) or Bottleneck (resnet50, 101, 152) stacks,
//                   64/128/256/512 planes, the first block of layer2..4 strided by 2
//   avgpool AdaptiveAvgPool2d(1), flatten, fc Linear(512 * expansion, num_classes)
// Input [N, in_channels, H, W] (any H, W >= 32 or so; 224 for ImageNet);
// logits [N, num_classes]. Initialization as torchvision's: conv
// kaiming_normal_ (fan_out, relu), BatchNorm ones/zeros, fc PyTorch's
// default. (torchvision's groups / width_per_group / dilation options, for
// ResNeXt and wide ResNets, are not offered.)
#pragma once
#include <array>
#include <memory>

#include "nabla/nn/activation.h"
#include "nabla/nn/batchnorm.h"
#include "nabla/nn/conv.h"
#include "nabla/nn/linear.h"
#include "nabla/nn/pooling.h"
#include "nabla/nn/sequential.h"
#include "nabla/zoo/options.h"

namespace nabla::zoo {

// Two 3x3 convs and a shortcut: relu(bn2(conv2(relu(bn1(conv1(x))))) + shortcut(x)).
class BasicBlock : public nn::Module {
 public:
  static constexpr int64_t expansion = 1;
  // `downsample` (nullptr: identity) maps x to the output's shape.
  BasicBlock(int64_t inplanes, int64_t planes, int64_t stride = 1, nn::ModulePtr downsample = nullptr);
  Tensor forward(const Tensor& x) override;

  std::shared_ptr<nn::Conv2d> conv1;
  std::shared_ptr<nn::BatchNorm2d> bn1;
  std::shared_ptr<nn::ReLU> relu;
  std::shared_ptr<nn::Conv2d> conv2;
  std::shared_ptr<nn::BatchNorm2d> bn2;
  nn::ModulePtr downsample;
};

// 1x1 reduce, 3x3 (strided), 1x1 expand to planes * 4, and a shortcut.
class Bottleneck : public nn::Module {
 public:
  static constexpr int64_t expansion = 4;
  Bottleneck(int64_t inplanes, int64_t planes, int64_t stride = 1, nn::ModulePtr downsample = nullptr);
  Tensor forward(const Tensor& x) override;

  std::shared_ptr<nn::Conv2d> conv1;
  std::shared_ptr<nn::BatchNorm2d> bn1;
  std::shared_ptr<nn::Conv2d> conv2;
  std::shared_ptr<nn::BatchNorm2d> bn2;
  std::shared_ptr<nn::Conv2d> conv3;
  std::shared_ptr<nn::BatchNorm2d> bn3;
  std::shared_ptr<nn::ReLU> relu;
  nn::ModulePtr downsample;
};

class ResNet : public nn::Module {
 public:
  enum class Block { Basic, Bottleneck };
  // `layers`: the number of blocks in layer1..layer4.
  ResNet(Block block, std::array<int64_t, 4> layers, const ModelOptions& options = {});
  Tensor forward(const Tensor& x) override;

  std::shared_ptr<nn::Conv2d> conv1;
  std::shared_ptr<nn::BatchNorm2d> bn1;
  std::shared_ptr<nn::ReLU> relu;
  std::shared_ptr<nn::MaxPool2d> maxpool;
  std::shared_ptr<nn::Sequential> layer1, layer2, layer3, layer4;
  std::shared_ptr<nn::AdaptiveAvgPool2d> avgpool;
  std::shared_ptr<nn::Linear> fc;

 private:
  std::shared_ptr<nn::Sequential> make_layer(Block block, int64_t planes, int64_t blocks, int64_t stride);
  int64_t inplanes_ = 64;
};

std::shared_ptr<ResNet> resnet18(const ModelOptions& options = {});
std::shared_ptr<ResNet> resnet34(const ModelOptions& options = {});
std::shared_ptr<ResNet> resnet50(const ModelOptions& options = {});
std::shared_ptr<ResNet> resnet101(const ModelOptions& options = {});
std::shared_ptr<ResNet> resnet152(const ModelOptions& options = {});

}  // namespace nabla::zoo

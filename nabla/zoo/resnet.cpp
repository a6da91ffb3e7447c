// See resnet.h.
#include "nabla/zoo/resnet.h"

#include <typeinfo>

#include "nabla/ops/ops.h"
#include "nabla/zoo/check_options.h"
#include "nabla/zoo/init.h"

namespace nabla::zoo {

namespace {
std::shared_ptr<nn::Conv2d> conv3x3(int64_t in, int64_t out, int64_t stride = 1) {
  return std::make_shared<nn::Conv2d>(in, out, 3, stride, 1, 1, 1, false);
}
std::shared_ptr<nn::Conv2d> conv1x1(int64_t in, int64_t out, int64_t stride = 1) {
  return std::make_shared<nn::Conv2d>(in, out, 1, stride, 0, 1, 1, false);
}

// relu(bn(x)): one op (BatchNorm2d::forward_relu) unless a subclass replaced
// either module (its forward may differ).
Tensor bn_relu(nn::BatchNorm2d& bn, nn::ReLU& relu, const Tensor& x) {
  const nn::Module &b = bn, &r = relu;  // typeid of plain references: no side effects for clang to warn about
  if (typeid(b) == typeid(nn::BatchNorm2d) && typeid(r) == typeid(nn::ReLU)) return bn.forward_relu(x);
  return relu.forward(bn.forward(x));
}
}  // namespace

// Children are registered in torchvision's order, so state_dict() lists the
// keys in the order torchvision's does.
BasicBlock::BasicBlock(int64_t inplanes, int64_t planes, int64_t stride, nn::ModulePtr ds) {
  conv1 = register_module("conv1", conv3x3(inplanes, planes, stride));
  bn1 = register_module("bn1", std::make_shared<nn::BatchNorm2d>(planes));
  relu = register_module("relu", std::make_shared<nn::ReLU>());
  conv2 = register_module("conv2", conv3x3(planes, planes));
  bn2 = register_module("bn2", std::make_shared<nn::BatchNorm2d>(planes));
  if (ds) downsample = register_module("downsample", std::move(ds));
}

Tensor BasicBlock::forward(const Tensor& x) {
  Tensor out = bn_relu(*bn1, *relu, conv1->forward(x));
  out = bn2->forward(conv2->forward(out));
  return relu->forward(out + (downsample ? downsample->forward(x) : x));
}

Bottleneck::Bottleneck(int64_t inplanes, int64_t planes, int64_t stride, nn::ModulePtr ds) {
  conv1 = register_module("conv1", conv1x1(inplanes, planes));
  bn1 = register_module("bn1", std::make_shared<nn::BatchNorm2d>(planes));
  conv2 = register_module("conv2", conv3x3(planes, planes, stride));
  bn2 = register_module("bn2", std::make_shared<nn::BatchNorm2d>(planes));
  conv3 = register_module("conv3", conv1x1(planes, planes * expansion));
  bn3 = register_module("bn3", std::make_shared<nn::BatchNorm2d>(planes * expansion));
  relu = register_module("relu", std::make_shared<nn::ReLU>());
  if (ds) downsample = register_module("downsample", std::move(ds));
}

Tensor Bottleneck::forward(const Tensor& x) {
  Tensor out = bn_relu(*bn1, *relu, conv1->forward(x));
  out = bn_relu(*bn2, *relu, conv2->forward(out));
  out = bn3->forward(conv3->forward(out));
  return relu->forward(out + (downsample ? downsample->forward(x) : x));
}

ResNet::ResNet(Block block, std::array<int64_t, 4> layers, const ModelOptions& options) {
  auto opt = detail::check_options("ResNet", options, 1000, 3, -1.0);
  for (int64_t n : layers) NABLA_CHECK(n >= 1, "zoo::ResNet: every layer needs at least one block, got ", n);
  conv1 = register_module("conv1", std::make_shared<nn::Conv2d>(opt.in_channels, 64, 7, 2, 3, 1, 1, false));
  bn1 = register_module("bn1", std::make_shared<nn::BatchNorm2d>(64));
  relu = register_module("relu", std::make_shared<nn::ReLU>());
  maxpool = register_module("maxpool", std::make_shared<nn::MaxPool2d>(3, 2, 1));
  layer1 = register_module("layer1", make_layer(block, 64, layers[0], 1));
  layer2 = register_module("layer2", make_layer(block, 128, layers[1], 2));
  layer3 = register_module("layer3", make_layer(block, 256, layers[2], 2));
  layer4 = register_module("layer4", make_layer(block, 512, layers[3], 2));
  avgpool = register_module("avgpool", std::make_shared<nn::AdaptiveAvgPool2d>(1));
  fc = register_module("fc", std::make_shared<nn::Linear>(inplanes_, opt.num_classes));
  detail::torchvision_init(*this, 0.0);
}

std::shared_ptr<nn::Sequential> ResNet::make_layer(Block block, int64_t planes, int64_t blocks, int64_t stride) {
  const int64_t expansion = block == Block::Basic ? BasicBlock::expansion : Bottleneck::expansion;
  auto make_block = [&](int64_t stride, nn::ModulePtr ds) -> nn::ModulePtr {
    if (block == Block::Basic) return std::make_shared<BasicBlock>(inplanes_, planes, stride, std::move(ds));
    return std::make_shared<Bottleneck>(inplanes_, planes, stride, std::move(ds));
  };
  nn::ModulePtr ds;
  if (stride != 1 || inplanes_ != planes * expansion) {
    ds = std::make_shared<nn::Sequential>(conv1x1(inplanes_, planes * expansion, stride),
                                          std::make_shared<nn::BatchNorm2d>(planes * expansion));
  }
  auto layer = std::make_shared<nn::Sequential>();
  layer->push_back(make_block(stride, ds));
  inplanes_ = planes * expansion;
  for (int64_t i = 1; i < blocks; ++i) layer->push_back(make_block(1, nullptr));
  return layer;
}

Tensor ResNet::forward(const Tensor& x) {
  Tensor out = maxpool->forward(bn_relu(*bn1, *relu, conv1->forward(x)));
  out = layer4->forward(layer3->forward(layer2->forward(layer1->forward(out))));
  return fc->forward(avgpool->forward(out).flatten(1));
}

std::shared_ptr<ResNet> resnet18(const ModelOptions& o) { return std::make_shared<ResNet>(ResNet::Block::Basic, std::array<int64_t, 4>{2, 2, 2, 2}, o); }
std::shared_ptr<ResNet> resnet34(const ModelOptions& o) { return std::make_shared<ResNet>(ResNet::Block::Basic, std::array<int64_t, 4>{3, 4, 6, 3}, o); }
std::shared_ptr<ResNet> resnet50(const ModelOptions& o) { return std::make_shared<ResNet>(ResNet::Block::Bottleneck, std::array<int64_t, 4>{3, 4, 6, 3}, o); }
std::shared_ptr<ResNet> resnet101(const ModelOptions& o) { return std::make_shared<ResNet>(ResNet::Block::Bottleneck, std::array<int64_t, 4>{3, 4, 23, 3}, o); }
std::shared_ptr<ResNet> resnet152(const ModelOptions& o) { return std::make_shared<ResNet>(ResNet::Block::Bottleneck, std::array<int64_t, 4>{3, 8, 36, 3}, o); }

}  // namespace nabla::zoo

// See vgg.h.
#include "nabla/zoo/vgg.h"

#include "nabla/nn/activation.h"
#include "nabla/nn/batchnorm.h"
#include "nabla/nn/conv.h"
#include "nabla/nn/linear.h"
#include "nabla/zoo/check_options.h"
#include "nabla/zoo/init.h"

namespace nabla::zoo {

namespace {
constexpr int64_t M = 0;  // a max pooling in a config
// torchvision's cfgs "A", "B", "D", "E".
const std::vector<int64_t> kVgg11{64, M, 128, M, 256, 256, M, 512, 512, M, 512, 512, M};
const std::vector<int64_t> kVgg13{64, 64, M, 128, 128, M, 256, 256, M, 512, 512, M, 512, 512, M};
const std::vector<int64_t> kVgg16{64, 64, M, 128, 128, M, 256, 256, 256, M, 512, 512, 512, M, 512, 512, 512, M};
const std::vector<int64_t> kVgg19{64,  64,  M,   128, 128, M,   256, 256, 256, 256, M,
                                  512, 512, 512, 512, M,   512, 512, 512, 512, M};
}  // namespace

VGG::VGG(const std::vector<int64_t>& config, bool batch_norm, const ModelOptions& options) {
  auto opt = detail::check_options("VGG", options, 1000, 3, 0.5);
  features = register_module("features", std::make_shared<nn::Sequential>());
  int64_t channels = opt.in_channels;
  for (int64_t v : config) {
    if (v == M) {
      features->push_back(nn::MaxPool2d(2, 2));
      continue;
    }
    features->push_back(nn::Conv2d(channels, v, 3, 1, 1));
    if (batch_norm) features->push_back(nn::BatchNorm2d(v));
    features->push_back(nn::ReLU());
    channels = v;
  }
  avgpool = register_module("avgpool", std::make_shared<nn::AdaptiveAvgPool2d>(7));
  classifier = register_module("classifier", std::make_shared<nn::Sequential>());
  classifier->push_back(nn::Linear(channels * 7 * 7, 4096));
  classifier->push_back(nn::ReLU());
  classifier->push_back(nn::Dropout(opt.dropout));
  classifier->push_back(nn::Linear(4096, 4096));
  classifier->push_back(nn::ReLU());
  classifier->push_back(nn::Dropout(opt.dropout));
  classifier->push_back(nn::Linear(4096, opt.num_classes));
  detail::torchvision_init(*this, 0.01);
}

Tensor VGG::forward(const Tensor& x) {
  return classifier->forward(avgpool->forward(features->forward(x)).flatten(1));
}

std::shared_ptr<VGG> vgg11(const ModelOptions& options) { return std::make_shared<VGG>(kVgg11, false, options); }
std::shared_ptr<VGG> vgg11_bn(const ModelOptions& options) { return std::make_shared<VGG>(kVgg11, true, options); }
std::shared_ptr<VGG> vgg13(const ModelOptions& options) { return std::make_shared<VGG>(kVgg13, false, options); }
std::shared_ptr<VGG> vgg13_bn(const ModelOptions& options) { return std::make_shared<VGG>(kVgg13, true, options); }
std::shared_ptr<VGG> vgg16(const ModelOptions& options) { return std::make_shared<VGG>(kVgg16, false, options); }
std::shared_ptr<VGG> vgg16_bn(const ModelOptions& options) { return std::make_shared<VGG>(kVgg16, true, options); }
std::shared_ptr<VGG> vgg19(const ModelOptions& options) { return std::make_shared<VGG>(kVgg19, false, options); }
std::shared_ptr<VGG> vgg19_bn(const ModelOptions& options) { return std::make_shared<VGG>(kVgg19, true, options); }

}  // namespace nabla::zoo

// See lenet.h.
#include "nabla/zoo/lenet.h"

#include "nabla/nn/activation.h"
#include "nabla/nn/conv.h"
#include "nabla/nn/linear.h"
#include "nabla/nn/pooling.h"
#include "nabla/zoo/check_options.h"

namespace nabla::zoo {

LeNet5::LeNet5(const ModelOptions& options) {
  auto opt = detail::check_options("lenet5", options, 10, 1, -1.0);
  features = register_module("features", std::make_shared<nn::Sequential>());
  features->push_back(nn::Conv2d(opt.in_channels, 6, 5, 1, 2));
  features->push_back(nn::ReLU());
  features->push_back(nn::MaxPool2d(2));
  features->push_back(nn::Conv2d(6, 16, 5));
  features->push_back(nn::ReLU());
  features->push_back(nn::MaxPool2d(2));
  classifier = register_module("classifier", std::make_shared<nn::Sequential>());
  classifier->push_back(nn::Linear(16 * 5 * 5, 120));
  classifier->push_back(nn::ReLU());
  classifier->push_back(nn::Linear(120, 84));
  classifier->push_back(nn::ReLU());
  classifier->push_back(nn::Linear(84, opt.num_classes));
}

Tensor LeNet5::forward(const Tensor& x) { return classifier->forward(features->forward(x).flatten(1)); }

std::shared_ptr<LeNet5> lenet5(const ModelOptions& options) { return std::make_shared<LeNet5>(options); }

}  // namespace nabla::zoo

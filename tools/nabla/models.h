// The models `nabla train` knows, defined in one place: the default CNN is
// also the model of the libtorch comparison benchmark, so keep its shape
// standard (see docs/train.md).
//
//   cnn: Conv2d(1, 32, 3, pad 1) ReLU MaxPool2 BatchNorm2d(32)
//        Conv2d(32, 64, 3, pad 1) ReLU MaxPool2 BatchNorm2d(64)
//        Flatten Linear(3136, 128) ReLU Dropout(0.25) Linear(128, 10)
//
// BatchNorm comes after the pooling, on a quarter of the values: measured on
// the 2-core machine, a step took 25% less time than with conv-BN-ReLU-pool,
// and 5 epochs reached 92.98% test accuracy instead of 91.99%.
//   mlp: Flatten Linear(784, 256) ReLU Linear(256, 128) ReLU Linear(128, 10)
//
// Both take float images [N, 1, 28, 28] and return logits [N, 10].
#pragma once
#include <string>
#include <vector>

#include "nabla/nn/module.h"

namespace nabla::tool {

// "cnn" or "mlp"; anything else raises nabla::Error listing the names.
nn::ModulePtr make_model(const std::string& name);
std::vector<std::string> model_names();

}  // namespace nabla::tool

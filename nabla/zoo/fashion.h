// The models of `nabla train` (docs/train.md), for any program: the default
// Fashion-MNIST CNN and a small MLP. bench/cnn_step_bench.cpp and its libtorch
// twin (bench/reference/torch_cnn_step.cpp) time this CNN layer for layer:
// keep them in step when it changes.
//
//   fashion_cnn: Conv2d(1, 32, 3, pad 1) ReLU MaxPool2 BatchNorm2d(32)
//                Conv2d(32, 64, 3, pad 1) ReLU MaxPool2 BatchNorm2d(64)
//                Flatten Linear(3136, 128) ReLU Dropout(0.25) Linear(128, 10)
//
// BatchNorm comes after the pooling, on a quarter of the values: measured on
// the 2-core machine, a step took 25% less time than with conv-BN-ReLU-pool,
// and 5 epochs reached 92.98% test accuracy instead of 91.99%.
//   fashion_mlp: Flatten Linear(784, 256) ReLU Linear(256, 128) ReLU Linear(128, 10)
//
// Both take float images [N, 1, 28, 28] normalized with data::kFashionMean
// and kFashionStd (data::collate_normalized) and return logits [N, 10].
//
// Pretrained: `fashion_cnn({.pretrained = true})` loads the weights shipped
// with nabla, models/fashion_cnn.safetensors (installed to
// <prefix>/share/nabla/models): `nabla train` with its defaults, 5 epochs,
// test accuracy 93.14% (kFashionCnnTestAccuracy; the file's metadata says
// it too; scripts/pretrained/fashion_cnn.sh remakes it). The model is in
// training mode, as torchvision's: call eval() to classify.
#pragma once
#include <string>

#include "nabla/nn/module.h"

namespace nabla::zoo {

inline constexpr double kFashionCnnTestAccuracy = 0.9314;  // of the shipped weights, on the 10000 test images

struct FashionOptions {
  bool pretrained = false;  // the shipped weights (fashion_cnn only)
  std::string weights;      // or a weights file of your own (a state dict in safetensors)
};

nn::ModulePtr fashion_cnn(const FashionOptions& options = {});
nn::ModulePtr fashion_mlp();

}  // namespace nabla::zoo

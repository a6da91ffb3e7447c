// The options every zoo model takes (torchvision's keyword arguments), for
// zoo::resnet18(...), zoo::vgg11(...), ... and zoo::create(name, options).
//
//   auto net = zoo::resnet18({.num_classes = 10});
#pragma once
#include <cstdint>
#include <optional>

namespace nabla::zoo {

struct ModelOptions {
  // Size of the last layer; unset: the model's default (1000, LeNet-5's 10).
  std::optional<int64_t> num_classes;
  // Channels of the input image; unset: 3 (LeNet-5: 1). torchvision has no
  // such argument: a value other than 3 changes the first conv's weight shape.
  std::optional<int64_t> in_channels;
  // Dropout probability of the classifier (VGG: 0.5, MobileNetV2: 0.2 when
  // unset); models without dropout (ResNet, LeNet-5) reject it.
  std::optional<double> dropout;
  // MobileNetV2's width multiplier (channels scaled, rounded to multiples of
  // 8, as torchvision); other models accept only 1.
  double width_mult = 1.0;
};

}  // namespace nabla::zoo

// Linear and Conv2d with PyTorch's default initialization: weights
// kaiming_uniform_(a = sqrt(5)), i.e. U(±1/sqrt(fan_in)), and biases
// U(±1/sqrt(fan_in)).
#pragma once
#include <cstdint>

#include "nabla/nn/module.h"

namespace nabla::nn {

// y = x W^T + b; weight [out_features, in_features], bias [out_features].
class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  void reset_parameters();

  int64_t in_features, out_features;
  Tensor weight, bias;  // bias undefined when constructed with bias = false
};

// NCHW convolution; weight [out, in / groups, k, k], bias [out]. Square
// kernels, strides, paddings and dilations.
class Conv2d : public Module {
 public:
  Conv2d(int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride = 1, int64_t padding = 0,
         int64_t dilation = 1, int64_t groups = 1, bool bias = true);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  void reset_parameters();

  int64_t in_channels, out_channels, kernel_size, stride, padding, dilation, groups;
  Tensor weight, bias;
};

}  // namespace nabla::nn

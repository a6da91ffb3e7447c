// Linear with PyTorch's default initialization: weight kaiming_uniform_(a =
// sqrt(5)), i.e. U(±1/sqrt(fan_in)), and bias U(±1/sqrt(fan_in)). Identity
// (a placeholder that returns its input). The conv layers are in conv.h
// (included here, where Conv2d used to live).
#pragma once
#include <cstdint>

#include "nabla/nn/conv.h"
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

// Returns its input (torch.nn.Identity); e.g. to switch off a block.
class Identity : public Module {
 public:
  Tensor forward(const Tensor& x) override { return x; }
};

}  // namespace nabla::nn

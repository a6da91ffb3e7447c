// LayerNorm and GroupNorm (torch.nn.LayerNorm, GroupNorm): per-sample
// normalization (biased variance), then an optional elementwise affine map
// with weight = ones, bias = zeros at construction, as PyTorch.
#pragma once
#include <vector>

#include "nabla/nn/module.h"

namespace nabla::nn {

// Normalizes over the trailing dims `normalized_shape` of the input;
// weight/bias have that shape.
class LayerNorm : public Module {
 public:
  explicit LayerNorm(std::vector<int64_t> normalized_shape, double eps = 1e-5, bool elementwise_affine = true);
  explicit LayerNorm(int64_t normalized_shape, double eps = 1e-5, bool elementwise_affine = true)
      : LayerNorm(std::vector<int64_t>{normalized_shape}, eps, elementwise_affine) {}
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  void reset_parameters();

  std::vector<int64_t> normalized_shape;
  double eps;
  Tensor weight, bias;  // undefined unless elementwise_affine
};

// Input [N, C, *]: the C channels are split into num_groups groups, each
// normalized over its channels and the * dims; weight/bias [C] per channel.
class GroupNorm : public Module {
 public:
  GroupNorm(int64_t num_groups, int64_t num_channels, double eps = 1e-5, bool affine = true);
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  void reset_parameters();

  int64_t num_groups, num_channels;
  double eps;
  Tensor weight, bias;  // undefined unless affine
};

}  // namespace nabla::nn

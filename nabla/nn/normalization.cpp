// LayerNorm and GroupNorm over nabla::layer_norm / group_norm.
#include "nabla/nn/normalization.h"

#include "nabla/nn/init.h"
#include "nabla/ops/ops.h"

namespace nabla::nn {

LayerNorm::LayerNorm(std::vector<int64_t> shape, double eps, bool affine)
    : normalized_shape(std::move(shape)), eps(eps) {
  bool ok = !normalized_shape.empty();
  for (int64_t s : normalized_shape) ok = ok && s > 0;
  NABLA_CHECK(ok, "nn::LayerNorm: normalized_shape must be a non-empty list of positive sizes, got ",
              IntList(normalized_shape));
  if (affine) {
    weight = register_parameter("weight", ones(normalized_shape));
    bias = register_parameter("bias", zeros(normalized_shape));
  }
}

void LayerNorm::reset_parameters() {
  if (!weight.defined()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

Tensor LayerNorm::forward(const Tensor& x) { return layer_norm(x, normalized_shape, weight, bias, eps); }

std::string LayerNorm::extra_repr() const {
  std::string shape = "(";
  for (std::size_t i = 0; i < normalized_shape.size(); ++i)
    shape += (i ? ", " : "") + std::to_string(normalized_shape[i]);
  shape += normalized_shape.size() == 1 ? ",)" : ")";
  return detail::concat(shape, ", eps=", eps, ", elementwise_affine=", weight.defined() ? "true" : "false");
}

GroupNorm::GroupNorm(int64_t groups, int64_t channels, double eps, bool affine)
    : num_groups(groups), num_channels(channels), eps(eps) {
  NABLA_CHECK(groups > 0 && channels > 0 && channels % groups == 0, "nn::GroupNorm: num_channels (", channels,
              ") must be positive and divisible by num_groups (", groups, ")");
  if (affine) {
    weight = register_parameter("weight", ones({channels}));
    bias = register_parameter("bias", zeros({channels}));
  }
}

void GroupNorm::reset_parameters() {
  if (!weight.defined()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

Tensor GroupNorm::forward(const Tensor& x) {
  NABLA_CHECK(x.dim() >= 2 && x.size(1) == num_channels, "nn::GroupNorm: expected input [N, ", num_channels,
              ", *], got shape ", x.sizes());
  return group_norm(x, num_groups, weight, bias, eps);
}

std::string GroupNorm::extra_repr() const {
  return detail::concat(num_groups, ", ", num_channels, ", eps=", eps,
                        ", affine=", weight.defined() ? "true" : "false");
}

}  // namespace nabla::nn

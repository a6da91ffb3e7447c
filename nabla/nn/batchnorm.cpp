// BatchNorm2d over nabla::batch_norm.
#include "nabla/nn/batchnorm.h"

#include "nabla/core/grad_mode.h"
#include "nabla/ops/ops.h"

namespace nabla::nn {

BatchNorm2d::BatchNorm2d(int64_t n, double eps, double momentum, bool affine, bool track)
    : num_features(n), eps(eps), momentum(momentum) {
  NABLA_CHECK(n > 0, "nn::BatchNorm2d: num_features must be positive, got ", n);
  if (affine) {
    weight = register_parameter("weight", ones({n}));
    bias = register_parameter("bias", zeros({n}));
  }
  if (track) {
    running_mean = register_buffer("running_mean", zeros({n}));
    running_var = register_buffer("running_var", ones({n}));
    num_batches_tracked = register_buffer("num_batches_tracked", zeros({}, kInt64));
  }
}

Tensor BatchNorm2d::forward(const Tensor& x) {
  NABLA_CHECK(x.dim() == 4 && x.size(1) == num_features, "nn::BatchNorm2d: expected input [N, ", num_features,
              ", H, W], got shape ", x.sizes());
  bool use_batch_stats = is_training() || !running_mean.defined();
  if (is_training() && num_batches_tracked.defined()) {
    NoGradGuard g;
    num_batches_tracked.add_(1);
  }
  return batch_norm(x, running_mean, running_var, weight, bias, use_batch_stats, momentum, eps);
}

std::string BatchNorm2d::extra_repr() const {
  return detail::concat(num_features, ", eps=", eps, ", momentum=", momentum,
                        ", affine=", weight.defined() ? "true" : "false",
                        ", track_running_stats=", running_mean.defined() ? "true" : "false");
}

}  // namespace nabla::nn

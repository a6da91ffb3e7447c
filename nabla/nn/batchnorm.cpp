// BatchNorm1d and BatchNorm2d over nabla::batch_norm, following PyTorch's
// _BatchNorm.forward for the choice of statistics and the momentum.
#include "nabla/nn/batchnorm.h"

#include "nabla/core/grad_mode.h"
#include "nabla/core/trace_context.h"
#include "nabla/nn/data_format.h"
#include "nabla/nn/init.h"
#include "nabla/ops/ops.h"

namespace nabla::nn {

BatchNormBase::BatchNormBase(const char* api, int64_t n, double eps, std::optional<double> momentum, bool affine,
                             bool track)
    : num_features(n), eps(eps), momentum(momentum), api_(api) {
  NABLA_CHECK(n > 0, api, ": num_features must be positive, got ", n);
  NABLA_CHECK(eps >= 0, api, ": eps must be non-negative, got ", eps);
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

void BatchNormBase::reset_running_stats() {
  if (!running_mean.defined()) return;
  init::zeros_(running_mean);
  init::ones_(running_var);
  NoGradGuard g;
  num_batches_tracked.zero_();
}

void BatchNormBase::reset_parameters() {
  reset_running_stats();
  if (!weight.defined()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

Tensor BatchNormBase::forward(const Tensor& x) { return normalize(x, false); }

Tensor BatchNormBase::normalize(const Tensor& x, bool relu) {
  check_input(x);
  double factor = momentum.value_or(0.0);
  // A frozen layer (trainable(false)) runs in inference mode, as Keras's.
  const bool training = is_training() && is_trainable();
  if (training && num_batches_tracked.defined()) {
    // Inside nabla::compile the buffers' updates (this add_ and batch_norm's
    // running statistics) are traced as state updates that run at every call;
    // the cumulative average's factor would be read once, while tracing.
    if (const std::string* ctx = detail::trace_context(); ctx && !momentum)
      fail(*ctx, ": ", api_, " with momentum = None (a cumulative average) reads num_batches_tracked while tracing, "
           "which compile() cannot do; give a momentum (the default is 0.1) or train eagerly");
    NoGradGuard g;
    num_batches_tracked.add_(1);
    if (!momentum) factor = 1.0 / num_batches_tracked.item<double>();
  }
  // Without tracking, running_mean is undefined and batch stats are used in eval too.
  bool use_batch_stats = training || !running_mean.defined();
  return (relu ? batch_norm_relu : batch_norm)(x, running_mean, running_var, weight, bias, use_batch_stats, factor, eps);
}

std::string BatchNormBase::extra_repr() const {
  std::string m = momentum ? detail::concat(*momentum) : "None";
  return detail::concat(num_features, ", eps=", eps, ", momentum=", m, ", affine=", weight.defined() ? "true" : "false",
                        ", track_running_stats=", running_mean.defined() ? "true" : "false");
}

BatchNorm1d::BatchNorm1d(int64_t n, double eps, std::optional<double> momentum, bool affine, bool track)
    : BatchNormBase("nn::BatchNorm1d", n, eps, momentum, affine, track) {}

void BatchNorm1d::check_input(const Tensor& x) const {
  NABLA_CHECK((x.dim() == 2 || x.dim() == 3) && x.size(1) == num_features, api_, ": expected input [N, ", num_features,
              "] or [N, ", num_features, ", L], got shape ", x.sizes());
}

BatchNorm2d::BatchNorm2d(int64_t n, double eps, std::optional<double> momentum, bool affine, bool track,
                         const std::string& format)
    : BatchNormBase("nn::BatchNorm2d", n, eps, momentum, affine, track),
      data_format(checked_data_format(format, "nn::BatchNorm2d")) {}

Tensor BatchNorm2d::forward(const Tensor& x) { return run(x, false); }
Tensor BatchNorm2d::forward_relu(const Tensor& x) { return run(x, true); }

Tensor BatchNorm2d::run(const Tensor& x, bool relu) {
  if (data_format != "NHWC") return normalize(x, relu);
  NABLA_CHECK(x.defined() && x.dim() == 4, api_, ": data_format \"NHWC\" expects input [N, H, W, ", num_features,
              "], got ", x.defined() ? x.sizes() : Shape{});
  return nhwc_view_of_nchw(normalize(nchw_view_of_nhwc(x, api_), relu));
}

std::string BatchNorm2d::extra_repr() const {
  return BatchNormBase::extra_repr() + (data_format == "NHWC" ? ", data_format=NHWC" : "");
}

void BatchNorm2d::check_input(const Tensor& x) const {
  NABLA_CHECK(x.dim() == 4 && x.size(1) == num_features, api_, ": expected input [N, ", num_features,
              ", H, W], got shape ", x.sizes());
}

}  // namespace nabla::nn

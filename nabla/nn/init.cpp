// Parameter initializers (torch.nn.init).
#include "nabla/nn/init.h"

#include <cmath>

#include "nabla/core/grad_mode.h"
#include "nabla/ops/ops.h"

namespace nabla::nn::init {

double calculate_gain(const std::string& nl, double param) {
  if (nl == "linear" || nl == "sigmoid" || nl == "identity" || nl.rfind("conv", 0) == 0) return 1.0;
  if (nl == "tanh") return 5.0 / 3.0;
  if (nl == "relu") return std::sqrt(2.0);
  if (nl == "leaky_relu") {
    double slope = param < 0 ? 0.01 : param;
    return std::sqrt(2.0 / (1.0 + slope * slope));
  }
  if (nl == "selu") return 0.75;
  NABLA_CHECK(false, "init::calculate_gain: unknown nonlinearity '", nl,
              "' (expected linear, conv1d, conv2d, sigmoid, tanh, relu, leaky_relu or selu)");
  return 0;
}

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& t) {
  NABLA_CHECK(t.dim() >= 2, "init: fan in and fan out need a tensor of at least 2 dims, got shape ", t.sizes());
  int64_t receptive = 1;
  for (int64_t d = 2; d < t.dim(); ++d) receptive *= t.size(d);
  return {t.size(1) * receptive, t.size(0) * receptive};
}

static int64_t fan(const Tensor& t, const std::string& mode) {
  auto [in, out] = calculate_fan_in_and_fan_out(t);
  NABLA_CHECK(mode == "fan_in" || mode == "fan_out", "init: mode must be 'fan_in' or 'fan_out', got '", mode, "'");
  return mode == "fan_in" ? in : out;
}

// Random numbers are drawn in float64 for float64 tensors, else float32.
static DType draw_dtype(const Tensor& t) {
  NABLA_CHECK(t.is_floating_point(), "init: cannot fill a tensor of dtype ", t.dtype(), " with random values");
  return t.dtype() == kFloat64 ? kFloat64 : kFloat32;
}

Tensor uniform_(Tensor t, double a, double b) {
  NoGradGuard g;
  t.copy_(rand(t.sizes(), draw_dtype(t)) * (b - a) + a);
  return t;
}

Tensor normal_(Tensor t, double mean, double std) {
  NoGradGuard g;
  t.copy_(normal(mean, std, t.sizes(), draw_dtype(t)));
  return t;
}

Tensor constant_(Tensor t, double value) {
  NoGradGuard g;
  t.fill_(value);
  return t;
}
Tensor zeros_(Tensor t) { return constant_(std::move(t), 0.0); }
Tensor ones_(Tensor t) { return constant_(std::move(t), 1.0); }

Tensor xavier_uniform_(Tensor t, double gain) {
  auto [in, out] = calculate_fan_in_and_fan_out(t);
  double b = gain * std::sqrt(6.0 / static_cast<double>(in + out));
  return uniform_(std::move(t), -b, b);
}

Tensor xavier_normal_(Tensor t, double gain) {
  auto [in, out] = calculate_fan_in_and_fan_out(t);
  return normal_(std::move(t), 0.0, gain * std::sqrt(2.0 / static_cast<double>(in + out)));
}

Tensor kaiming_uniform_(Tensor t, double a, const std::string& mode, const std::string& nonlinearity) {
  double b = calculate_gain(nonlinearity, a) * std::sqrt(3.0 / static_cast<double>(fan(t, mode)));
  return uniform_(std::move(t), -b, b);
}

Tensor kaiming_normal_(Tensor t, double a, const std::string& mode, const std::string& nonlinearity) {
  double std = calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan(t, mode)));
  return normal_(std::move(t), 0.0, std);
}

}  // namespace nabla::nn::init

// Parameter initializers (torch.nn.init).
#include "nabla/nn/init.h"

#include <cmath>
#include <vector>

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

// Random numbers are drawn on the tensor's device, in float64 for float64
// tensors, else float32.
static DType draw_dtype(const Tensor& t) {
  NABLA_CHECK(t.is_floating_point(), "init: cannot fill a tensor of dtype ", t.dtype(), " with random values");
  return t.dtype() == kFloat64 ? kFloat64 : kFloat32;
}

Tensor uniform_(Tensor t, double a, double b) {
  NoGradGuard g;
  t.copy_(rand(t.sizes(), TensorOptions(draw_dtype(t)).device(t.device())) * (b - a) + a);
  return t;
}

Tensor normal_(Tensor t, double mean, double std) {
  NoGradGuard g;
  t.copy_(normal(mean, std, t.sizes(), TensorOptions(draw_dtype(t)).device(t.device())));
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

// Householder QR of the m x n matrix `a` (row-major, m >= n):
// returns the reduced Q (m x n, row-major) with each column multiplied by the
// sign of R's diagonal entry.
static std::vector<double> sign_corrected_q(std::vector<double> a, int64_t m, int64_t n) {
  auto at = [&](std::vector<double>& x, int64_t i, int64_t j) -> double& { return x[static_cast<size_t>(i * n + j)]; };
  std::vector<std::vector<double>> vs;  // Householder vectors, v_k has m - k entries
  std::vector<double> diag(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    double norm = 0;
    for (int64_t i = k; i < m; ++i) norm += at(a, i, k) * at(a, i, k);
    norm = std::sqrt(norm);
    double alpha = at(a, k, k) > 0 ? -norm : norm;  // the sign that avoids cancellation
    std::vector<double> v(static_cast<size_t>(m - k));
    for (int64_t i = k; i < m; ++i) v[static_cast<size_t>(i - k)] = at(a, i, k);
    v[0] -= alpha;
    double vnorm = 0;
    for (double x : v) vnorm += x * x;
    vnorm = std::sqrt(vnorm);
    if (vnorm > 0)
      for (double& x : v) x /= vnorm;
    // a[k:, k:] -= 2 v (v^T a[k:, k:])
    for (int64_t j = k; j < n; ++j) {
      double dot = 0;
      for (int64_t i = k; i < m; ++i) dot += v[static_cast<size_t>(i - k)] * at(a, i, j);
      for (int64_t i = k; i < m; ++i) at(a, i, j) -= 2 * v[static_cast<size_t>(i - k)] * dot;
    }
    diag[static_cast<size_t>(k)] = at(a, k, k);
    vs.push_back(std::move(v));
  }
  // Q = H_0 ... H_{n-1} I[:, :n], applied right to left.
  std::vector<double> q(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < n; ++i) at(q, i, i) = 1.0;
  for (int64_t k = n - 1; k >= 0; --k) {
    const auto& v = vs[static_cast<size_t>(k)];
    for (int64_t j = 0; j < n; ++j) {
      double dot = 0;
      for (int64_t i = k; i < m; ++i) dot += v[static_cast<size_t>(i - k)] * at(q, i, j);
      for (int64_t i = k; i < m; ++i) at(q, i, j) -= 2 * v[static_cast<size_t>(i - k)] * dot;
    }
  }
  for (int64_t j = 0; j < n; ++j) {
    double d = diag[static_cast<size_t>(j)];
    double s = d > 0 ? 1.0 : (d < 0 ? -1.0 : 0.0);  // torch.sign, as PyTorch's orthogonal_ uses
    for (int64_t i = 0; i < m; ++i) at(q, i, j) *= s;
  }
  return q;
}

Tensor orthogonal_(Tensor t, double gain) {
  NABLA_CHECK(t.dim() >= 2, "init::orthogonal_: only tensors with 2 or more dimensions are supported, got shape ",
              t.sizes());
  draw_dtype(t);
  if (t.numel() == 0) return t;
  const int64_t rows = t.size(0), cols = t.numel() / rows;
  const bool wide = rows < cols;
  const int64_t m = wide ? cols : rows, n = wide ? rows : cols;
  // Draw [rows, cols] like PyTorch, then factor its transpose when wide.
  Tensor drawn = normal(0.0, 1.0, {rows, cols}, kFloat64);
  Tensor a = wide ? drawn.t().contiguous() : drawn;
  std::vector<double> q = sign_corrected_q(a.to_vector<double>(), m, n);
  Tensor result = tensor(q, {m, n}, kFloat64);
  if (wide) result = result.t();
  NoGradGuard g;
  t.copy_((result * gain).reshape(t.sizes()));
  return t;
}

void default_layer_init_(const Tensor& weight, const Tensor& bias) {
  kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    double b = 1.0 / std::sqrt(static_cast<double>(calculate_fan_in_and_fan_out(weight).first));
    uniform_(bias, -b, b);
  }
}

}  // namespace nabla::nn::init

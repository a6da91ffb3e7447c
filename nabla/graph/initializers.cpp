// Variable initializers: the factories check their arguments at build time;
// draw() samples with the ops rand()/normal() of the seeded generator, as
// nn::init does (graph/ lies below nn/, so it calls the ops, not nn::init).
#include "nabla/graph/initializers.h"

#include <cmath>

#include "nabla/core/grad_mode.h"
#include "nabla/ops/ops.h"

namespace nabla::graph {

namespace {

using Kind = Initializer::Kind;

void check_shape(const char* api, IntList shape) {
  for (int64_t d : shape)
    NABLA_CHECK(d >= 0, "graph::init::", api, ": shape ", shape, " has a negative dim; expected sizes >= 0");
}

Initializer make(const char* api, Kind kind, double a, double b, IntList shape, DType dtype) {
  Initializer init;
  init.kind = kind;
  init.a = a;
  init.b = b;
  init.shape = shape.shape();
  init.dtype = dtype;
  init.name = api;
  init.check(std::string("graph::init::") + api);
  return init;
}

// fan_in + fan_out, which must be positive for Xavier/Glorot.
double fan_sum(const char* api, IntList shape) {
  check_shape(api, shape);
  Fans f = compute_fans(shape);
  NABLA_CHECK(f.in + f.out > 0, "graph::init::", api, ": shape ", shape,
              " has fan_in + fan_out = 0; Xavier/Glorot needs a non-empty shape");
  return static_cast<double>(f.in + f.out);
}

}  // namespace

Fans compute_fans(IntList shape) {
  const int64_t n = static_cast<int64_t>(shape.size());
  if (n == 0) return {1, 1};
  if (n == 1) return {shape[0], shape[0]};
  int64_t receptive = 1;
  for (int64_t i = 0; i < n - 2; ++i) receptive *= shape[static_cast<std::size_t>(i)];
  return {shape[static_cast<std::size_t>(n - 2)] * receptive, shape[static_cast<std::size_t>(n - 1)] * receptive};
}

void Initializer::check(const std::string& api) const {
  for (int64_t d : shape)
    NABLA_CHECK(d >= 0, api, ": shape ", shape, " has a negative dim; expected sizes >= 0");
  NABLA_CHECK(std::isfinite(a) && std::isfinite(b), api, ": parameters must be finite, got ", a, " and ", b);
  if (kind == Kind::Constant) return;
  NABLA_CHECK(is_floating(dtype), api, ": dtype ", dtype,
              " is not a floating-point dtype; random initializers need float16, bfloat16, float32 or float64");
  if (kind == Kind::Uniform)
    NABLA_CHECK(a <= b, api, ": minval ", a, " is greater than maxval ", b);
  else
    NABLA_CHECK(b >= 0.0, api, ": stddev must be >= 0, got ", b);
}

Tensor Initializer::draw() const {
  NoGradGuard no_grad;
  if (kind == Kind::Constant) return full(shape, a, dtype);
  // As nn::init: draws in float64 for float64, else in float32 (then converted).
  const DType d = dtype == kFloat64 ? kFloat64 : kFloat32;
  Tensor t;
  switch (kind) {
    case Kind::Normal:
      t = normal(a, b, shape, d);
      break;
    case Kind::Uniform:
      t = rand(shape, d) * (b - a) + a;
      break;
    case Kind::TruncatedNormal:
      // Redraw the elements outside [a - 2b, a + 2b] until none is left (about
      // 4.6% per round), as TensorFlow's truncated_normal does.
      t = normal(a, b, shape, d);
      for (;;) {
        Tensor outside = abs(t - a) > 2.0 * b;
        if (outside.sum().item<int64_t>() == 0) break;
        t = where(outside, normal(a, b, shape, d), t);
      }
      break;
    case Kind::Constant:
      break;
  }
  return t.dtype() == dtype ? t : t.to(dtype);
}

std::string Initializer::describe() const {
  std::string head = ::nabla::detail::concat(name, " ", dtype, " ", shape, ": ");
  switch (kind) {
    case Kind::Constant: return ::nabla::detail::concat(head, a);
    case Kind::Normal: return ::nabla::detail::concat(head, "N(", a, ", ", b, "^2)");
    case Kind::TruncatedNormal: return ::nabla::detail::concat(head, "N(", a, ", ", b, "^2) truncated at 2 stddev");
    case Kind::Uniform: return ::nabla::detail::concat(head, "U[", a, ", ", b, ")");
  }
  return head;
}

namespace init {

Initializer zeros(IntList shape, DType dtype) { return make("zeros", Kind::Constant, 0.0, 0.0, shape, dtype); }
Initializer ones(IntList shape, DType dtype) { return make("ones", Kind::Constant, 1.0, 0.0, shape, dtype); }
Initializer constant(IntList shape, double value, DType dtype) {
  return make("constant", Kind::Constant, value, 0.0, shape, dtype);
}

Initializer random_normal(IntList shape, double mean, double stddev, DType dtype) {
  return make("random_normal", Kind::Normal, mean, stddev, shape, dtype);
}
Initializer truncated_normal(IntList shape, double mean, double stddev, DType dtype) {
  return make("truncated_normal", Kind::TruncatedNormal, mean, stddev, shape, dtype);
}
Initializer random_uniform(IntList shape, double minval, double maxval, DType dtype) {
  return make("random_uniform", Kind::Uniform, minval, maxval, shape, dtype);
}

Initializer xavier_uniform(IntList shape, DType dtype) {
  double limit = std::sqrt(6.0 / fan_sum("xavier_uniform", shape));
  return make("xavier_uniform", Kind::Uniform, -limit, limit, shape, dtype);
}
Initializer glorot_uniform(IntList shape, DType dtype) {
  double limit = std::sqrt(6.0 / fan_sum("glorot_uniform", shape));
  return make("glorot_uniform", Kind::Uniform, -limit, limit, shape, dtype);
}
Initializer xavier_normal(IntList shape, DType dtype) {
  double stddev = std::sqrt(2.0 / fan_sum("xavier_normal", shape));
  return make("xavier_normal", Kind::Normal, 0.0, stddev, shape, dtype);
}
Initializer glorot_normal(IntList shape, DType dtype) {
  // 0.879...: the stddev of a standard normal truncated to [-2, 2].
  double stddev = std::sqrt(2.0 / fan_sum("glorot_normal", shape)) / 0.87962566103423978;
  return make("glorot_normal", Kind::TruncatedNormal, 0.0, stddev, shape, dtype);
}

}  // namespace init
}  // namespace nabla::graph

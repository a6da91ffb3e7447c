// OpInfo entries for the unary elementwise ops; references use <cmath>.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>

#include "support/op_info.h"

namespace nabla::testing {
namespace {

// A unary entry: samples of shape [3,4], [2,3,2] and [] drawn from [lo, hi].
OpInfo unary(const std::string& name, std::function<Tensor(const Tensor&)> fn, std::function<double(double)> ref,
             double lo = -2.0, double hi = 2.0, bool differentiable = true, bool gradgrad = true) {
  OpInfo info;
  info.name = name;
  info.covers = {name};
  info.run = [fn](const Tensors& in) { return Tensors{fn(in[0])}; };
  info.samples = [lo, hi] {
    return std::vector<Tensors>{{sample({3, 4}, lo, hi, 1)}, {sample({2, 3, 2}, lo, hi, 2)}, {sample({}, lo, hi, 3)}};
  };
  info.reference = [ref](const Tensors& in) { return Tensors{ref_unary(in[0], ref)}; };
  info.differentiable = differentiable;
  info.gradgrad = gradgrad;
  return info;
}

double gelu_ref(double x) { return 0.5 * x * (1 + std::erf(x / std::numbers::sqrt2)); }
double gelu_tanh_ref(double x) {
  return 0.5 * x * (1 + std::tanh(std::sqrt(2 / std::numbers::pi) * (x + 0.044715 * x * x * x)));
}

// Values away from the kinks of relu/abs/... so finite differences are valid.
const double kLo = -2.0, kHi = 2.0;

NABLA_OP_INFO(unary("neg", [](const Tensor& x) { return -x; }, [](double x) { return -x; }));
NABLA_OP_INFO(unary("abs", [](const Tensor& x) { return abs(x); }, [](double x) { return std::abs(x); }));
NABLA_OP_INFO(unary("sign", [](const Tensor& x) { return sign(x); },
                    [](double x) { return double((0 < x) - (x < 0)); }));
NABLA_OP_INFO(unary("square", [](const Tensor& x) { return square(x); }, [](double x) { return x * x; }));
NABLA_OP_INFO(unary("relu", [](const Tensor& x) { return relu(x); }, [](double x) { return x > 0 ? x : 0; }));
// relu's backward: grad_output where self > threshold (self kept away from the
// threshold, so finite differences are valid; self's own gradient is 0).
OpInfo threshold_backward_info(const std::string& name, double threshold, Shape gs, Shape xs) {
  OpInfo info;
  info.name = name;
  info.covers = {"threshold_backward"};
  info.run = [threshold](const Tensors& in) { return Tensors{threshold_backward(in[0], in[1], threshold)}; };
  info.samples = [gs, xs] {
    return std::vector<Tensors>{{sample(IntList(gs), -2, 2, 1), sample(IntList(xs), -2, 2, 2)},
                                {sample({3}, -2, 2, 3), sample({3}, -2, 2, 4)}};
  };
  info.reference = [threshold](const Tensors& in) {
    return Tensors{ref_binary(in[0], in[1], [threshold](double g, double x) { return x <= threshold ? 0.0 : g; })};
  };
  return info;
}
NABLA_OP_INFO(threshold_backward_info("threshold_backward", 0.0, {3, 4}, {3, 4}));
NABLA_OP_INFO(threshold_backward_info("threshold_backward_t05_broadcast", 0.5, {2, 3, 4}, {3, 4}));
NABLA_OP_INFO(unary("exp", [](const Tensor& x) { return exp(x); }, [](double x) { return std::exp(x); }));
NABLA_OP_INFO(unary("exp2", [](const Tensor& x) { return exp2(x); }, [](double x) { return std::exp2(x); }));
NABLA_OP_INFO(unary("log", [](const Tensor& x) { return log(x); }, [](double x) { return std::log(x); }, 0.5, 3.0));
NABLA_OP_INFO(unary("log2", [](const Tensor& x) { return log2(x); }, [](double x) { return std::log2(x); }, 0.5, 3.0));
NABLA_OP_INFO(unary("log1p", [](const Tensor& x) { return log1p(x); }, [](double x) { return std::log1p(x); }, -0.5, 3.0));
NABLA_OP_INFO(unary("expm1", [](const Tensor& x) { return expm1(x); }, [](double x) { return std::expm1(x); }));
NABLA_OP_INFO(unary("sqrt", [](const Tensor& x) { return sqrt(x); }, [](double x) { return std::sqrt(x); }, 0.5, 3.0));
NABLA_OP_INFO(unary("rsqrt", [](const Tensor& x) { return rsqrt(x); }, [](double x) { return 1 / std::sqrt(x); }, 0.5, 3.0));
NABLA_OP_INFO(unary("reciprocal", [](const Tensor& x) { return reciprocal(x); }, [](double x) { return 1 / x; }, 0.5, 3.0));
NABLA_OP_INFO(unary("sin", [](const Tensor& x) { return sin(x); }, [](double x) { return std::sin(x); }));
NABLA_OP_INFO(unary("cos", [](const Tensor& x) { return cos(x); }, [](double x) { return std::cos(x); }));
NABLA_OP_INFO(unary("tan", [](const Tensor& x) { return tan(x); }, [](double x) { return std::tan(x); }, -1.2, 1.2));
NABLA_OP_INFO(unary("tanh", [](const Tensor& x) { return tanh(x); }, [](double x) { return std::tanh(x); }));
NABLA_OP_INFO(unary("sigmoid", [](const Tensor& x) { return sigmoid(x); }, [](double x) { return 1 / (1 + std::exp(-x)); }));
NABLA_OP_INFO(unary("erf", [](const Tensor& x) { return erf(x); }, [](double x) { return std::erf(x); }));
NABLA_OP_INFO(unary("silu", [](const Tensor& x) { return silu(x); }, [](double x) { return x / (1 + std::exp(-x)); }));
NABLA_OP_INFO(unary("gelu", [](const Tensor& x) { return gelu(x); }, gelu_ref));
NABLA_OP_INFO(unary("gelu_tanh", [](const Tensor& x) { return gelu(x, "tanh"); }, gelu_tanh_ref));
NABLA_OP_INFO(unary("floor", [](const Tensor& x) { return floor(x); }, [](double x) { return std::floor(x); },
                    kLo, kHi));
NABLA_OP_INFO(unary("ceil", [](const Tensor& x) { return ceil(x); }, [](double x) { return std::ceil(x); }));
NABLA_OP_INFO(unary("round", [](const Tensor& x) { return round(x); }, [](double x) { return std::nearbyint(x); }));
NABLA_OP_INFO(unary("trunc", [](const Tensor& x) { return trunc(x); }, [](double x) { return std::trunc(x); }));
NABLA_OP_INFO(unary("leaky_relu", [](const Tensor& x) { return leaky_relu(x, 0.1); },
                    [](double x) { return x > 0 ? x : 0.1 * x; }));
NABLA_OP_INFO(unary("elu", [](const Tensor& x) { return elu(x, 1.5); },
                    [](double x) { return x > 0 ? x : 1.5 * std::expm1(x); }));
NABLA_OP_INFO(unary("softplus", [](const Tensor& x) { return softplus(x, 2.0, 3.0); },
                    [](double x) { return 2 * x > 3 ? x : std::log1p(std::exp(2 * x)) / 2; }));
NABLA_OP_INFO(unary("pow_scalar", [](const Tensor& x) { return x.pow(2.5); }, [](double x) { return std::pow(x, 2.5); },
                    0.5, 2.0));
NABLA_OP_INFO(unary("clamp", [](const Tensor& x) { return x.clamp(-1.0, 0.5); },
                    [](double x) { return std::min(std::max(x, -1.0), 0.5); }));
NABLA_OP_INFO(unary("clamp_min", [](const Tensor& x) { return x.clamp_min(0.25); },
                    [](double x) { return std::max(x, 0.25); }));
NABLA_OP_INFO(unary("clone", [](const Tensor& x) { return x.clone(); }, [](double x) { return x; }));

// PyTorch computes x^2, x^3, x^-1 and x^-2 as x*x, x*x*x, 1/x and 1/(x*x),
// rounding after each operation, where pow rounds once: for x^3 and x^-2,
// 26% of random float32 values differ by an ulp. nabla gives PyTorch's bits,
// checked here against the same operations written with nabla's own
// multiply and division, on random values of both signs over a wide range
// and on zeros of both signs, infinities and NaN.
TEST(PowScalar, SmallIntegerExponentsRoundLikePyTorch) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  for (DType dt : {kFloat32, kFloat64}) {
    manual_seed(11);
    Tensor x = cat({randn({4000}, dt) * exp(randn({4000}, dt) * 3.0), tensor({0.0, -0.0, inf, -inf, nan}).to(dt)});
    const std::pair<double, Tensor> cases[] = {
        {2.0, x * x}, {3.0, x * x * x}, {-1.0, 1.0 / x}, {-2.0, 1.0 / (x * x)}};
    for (const auto& [e, want] : cases) {
      Tensor got = x.pow(e);
      ASSERT_EQ(got.dtype(), dt);
      // Bitwise, NaN included.
      EXPECT_EQ(std::memcmp(got.raw_data(), want.raw_data(), static_cast<size_t>(x.numel()) * itemsize(dt)), 0)
          << dt << " x^" << e;
    }
  }
}

}  // namespace
}  // namespace nabla::testing

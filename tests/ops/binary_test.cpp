// OpInfo entries for binary elementwise ops, comparisons, logic, where, cast
// and copy: samples include broadcasting ([3,4] with [4], [3,1] with [1,4]).
#include <cmath>

#include "support/op_info.h"

namespace nabla::testing {
namespace {

using BinaryFn = std::function<Tensor(const Tensor&, const Tensor&)>;

std::vector<Tensors> binary_samples(double lo, double hi, double blo, double bhi) {
  return {{sample({3, 4}, lo, hi, 1), sample({3, 4}, blo, bhi, 2)},
          {sample({3, 4}, lo, hi, 3), sample({4}, blo, bhi, 4)},
          {sample({3, 1}, lo, hi, 5), sample({1, 4}, blo, bhi, 6)},
          {sample({2, 3}, lo, hi, 7), sample({}, blo, bhi, 8)}};
}

OpInfo binary(const std::string& name, BinaryFn fn, std::function<double(double, double)> ref, double lo = -2,
              double hi = 2, double blo = -2, double bhi = 2, bool differentiable = true,
              DType out = kFloat64) {
  OpInfo info;
  info.name = name;
  info.covers = {name};
  info.run = [fn](const Tensors& in) { return Tensors{fn(in[0], in[1])}; };
  info.samples = [=] { return binary_samples(lo, hi, blo, bhi); };
  info.reference = [ref, out](const Tensors& in) { return Tensors{ref_binary(in[0], in[1], ref, out)}; };
  info.differentiable = differentiable;
  return info;
}

double py_mod(double a, double b) {
  double r = std::fmod(a, b);
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

NABLA_OP_INFO(binary("add", [](auto& a, auto& b) { return a + b; }, [](double a, double b) { return a + b; }));
NABLA_OP_INFO(binary("sub", [](auto& a, auto& b) { return a - b; }, [](double a, double b) { return a - b; }));
NABLA_OP_INFO(binary("mul", [](auto& a, auto& b) { return a * b; }, [](double a, double b) { return a * b; }));
NABLA_OP_INFO(binary("div", [](auto& a, auto& b) { return a / b; }, [](double a, double b) { return a / b; }, -2, 2,
                     0.5, 2));
NABLA_OP_INFO(binary("floor_divide", [](auto& a, auto& b) { return floor_divide(a, b); },
                     [](double a, double b) { return std::floor(a / b); }, -3, 3, 0.7, 1.9));
NABLA_OP_INFO(binary("trunc_divide", [](auto& a, auto& b) { return div(a, b, "trunc"); },
                     [](double a, double b) { return std::trunc(a / b); }, -3, 3, 0.7, 1.9));
NABLA_OP_INFO(binary("remainder", [](auto& a, auto& b) { return remainder(a, b); }, py_mod, -3, 3, 0.7, 1.9));
NABLA_OP_INFO(binary("maximum", [](auto& a, auto& b) { return maximum(a, b); },
                     [](double a, double b) { return std::max(a, b); }));
NABLA_OP_INFO(binary("minimum", [](auto& a, auto& b) { return minimum(a, b); },
                     [](double a, double b) { return std::min(a, b); }));
NABLA_OP_INFO(binary("pow", [](auto& a, auto& b) { return pow(a, b); },
                     [](double a, double b) { return std::pow(a, b); }, 0.5, 2, -1.5, 1.5));
NABLA_OP_INFO(binary("eq", [](auto& a, auto& b) { return eq(a, round(b)); },
                     [](double a, double b) { return double(a == std::nearbyint(b)); }, -2, 2, -2, 2, false, kBool));
NABLA_OP_INFO(binary("ne", [](auto& a, auto& b) { return a != b; }, [](double a, double b) { return double(a != b); },
                     -2, 2, -2, 2, false, kBool));
NABLA_OP_INFO(binary("lt", [](auto& a, auto& b) { return a < b; }, [](double a, double b) { return double(a < b); },
                     -2, 2, -2, 2, false, kBool));
NABLA_OP_INFO(binary("le", [](auto& a, auto& b) { return a <= b; }, [](double a, double b) { return double(a <= b); },
                     -2, 2, -2, 2, false, kBool));
NABLA_OP_INFO(binary("gt", [](auto& a, auto& b) { return a > b; }, [](double a, double b) { return double(a > b); },
                     -2, 2, -2, 2, false, kBool));
NABLA_OP_INFO(binary("ge", [](auto& a, auto& b) { return a >= b; }, [](double a, double b) { return double(a >= b); },
                     -2, 2, -2, 2, false, kBool));
NABLA_OP_INFO(binary("logical_and", [](auto& a, auto& b) { return logical_and(a > 0.0, b > 0.0); },
                     [](double a, double b) { return double(a > 0 && b > 0); }, -2, 2, -2, 2, false, kBool));
NABLA_OP_INFO(binary("logical_or", [](auto& a, auto& b) { return logical_or(a > 0.0, b); },
                     [](double a, double b) { return double(a > 0 || b != 0); }, -2, 2, -2, 2, false, kBool));
NABLA_OP_INFO(binary("logical_xor", [](auto& a, auto& b) { return logical_xor(a > 0.0, b > 0.0); },
                     [](double a, double b) { return double((a > 0) != (b > 0)); }, -2, 2, -2, 2, false, kBool));
NABLA_OP_INFO(binary("where", [](auto& a, auto& b) { return where(a > b, a * 2.0, b); },
                     [](double a, double b) { return a > b ? 2 * a : b; }));
NABLA_OP_INFO(binary("copy", [](auto& a, auto& b) {
                       // copy_ into a non-leaf of the broadcast shape: gradient flows to b only.
                       Tensor t = a * 0.0 + b * 0.0;
                       t.copy_(b);
                       return t;
                     },
                     [](double, double b) { return b; }));

OpInfo predicate(const std::string& name, std::function<Tensor(const Tensor&)> fn, std::function<double(double)> ref) {
  OpInfo info;
  info.name = name;
  info.covers = {name};
  info.run = [fn](const Tensors& in) { return Tensors{fn(in[0])}; };
  info.samples = [] {
    return std::vector<Tensors>{{tensor({1.0, -2.0, 0.0, 3.5}, dtype(kFloat64)) / tensor({1.0, 0.0, 0.0, 1.0}, dtype(kFloat64))},
                                {sample({2, 3})}};
  };
  info.reference = [ref](const Tensors& in) { return Tensors{ref_unary(in[0], ref, kBool)}; };
  info.differentiable = false;
  info.noncontiguous = true;
  return info;
}
NABLA_OP_INFO(predicate("isnan", [](const Tensor& x) { return isnan(x); }, [](double x) { return double(std::isnan(x)); }));
NABLA_OP_INFO(predicate("isinf", [](const Tensor& x) { return isinf(x); }, [](double x) { return double(std::isinf(x)); }));
NABLA_OP_INFO(predicate("isfinite", [](const Tensor& x) { return isfinite(x); },
                        [](double x) { return double(std::isfinite(x)); }));
NABLA_OP_INFO(predicate("logical_not", [](const Tensor& x) { return logical_not(x > 0.5); },
                        [](double x) { return double(!(x > 0.5)); }));

OpInfo cast_info() {
  OpInfo info;
  info.name = "cast";
  info.covers = {"cast"};
  // Conversion to int32 (truncation) and a float32 round trip with its gradient;
  // float16/bfloat16 rounding is tested in tests/core/dtype_test.cpp.
  info.run = [](const Tensors& in) {
    return Tensors{in[0].to(kInt32), in[0].to(kFloat32).to(in[0].dtype()) * 3.0};
  };
  info.samples = [] { return std::vector<Tensors>{{tensor({1.0, -2.5, 0.125, 10.75, 3.0}, dtype(kFloat64))}}; };
  info.reference = [](const Tensors& in) {
    return Tensors{ref_unary(in[0], [](double x) { return std::trunc(x); }, kInt32), in[0] * 3.0};
  };
  info.grad_eps = 1e-3;  // float32 rounding noise must stay below the step
  info.grad_atol = 1e-3;
  return info;
}
NABLA_OP_INFO(cast_info());

}  // namespace
}  // namespace nabla::testing

// Error inputs of the unary elementwise ops (tests/support/error_inputs.h).
// They take any shape, so what can go wrong is the tensor itself (undefined),
// a result too large to allocate or to count in bytes, and dtypes PyTorch
// refuses (bool for neg, abs, relu and rounding; integers for activations).
#include "support/error_inputs.h"

namespace nabla::testing {
namespace {

using UnaryFn = Tensor (*)(const Tensor&);

// The cases every unary op has: an undefined input, a result of 2^50
// elements (refused allocation) and one whose byte count overflows.
std::vector<ErrorInput> any_unary(const std::string& op, const std::string& called, UnaryFn f) {
  return {
      {op, called, "undefined input", [f] { f(Tensor()); }, {"undefined tensor"}},
      {op, called, "a result of 2^50 elements", [f] { f(huge_view()); }, {"out of memory", "bytes"}},
      {op, called, "a result whose size in bytes overflows", [f] { f(overflowing_view()); }, {"overflow"}},
  };
}

// A dtype PyTorch refuses for the op.
ErrorInput refuses(const std::string& op, const std::string& called, UnaryFn f, DType t,
                   std::vector<std::string> expected) {
  return {op, called, "a " + std::string(dtype_name(t)) + " input", [f, t] { f(zeros({2}, dtype(t))); },
          std::move(expected)};
}

std::vector<ErrorInput> unary_cases() {
  std::vector<ErrorInput> all;
  auto add = [&](std::vector<ErrorInput> v) { all.insert(all.end(), v.begin(), v.end()); };
  const std::vector<std::pair<const char*, UnaryFn>> plain = {
      {"neg", neg},     {"abs", abs},         {"sign", sign},       {"square", square}, {"relu", relu},
      {"exp", exp},     {"exp2", exp2},       {"log", log},         {"log2", log2},     {"log1p", log1p},
      {"expm1", expm1}, {"sqrt", sqrt},       {"rsqrt", rsqrt},     {"reciprocal", reciprocal},
      {"sin", sin},     {"cos", cos},         {"tan", tan},         {"tanh", tanh},     {"sigmoid", sigmoid},
      {"erf", erf},     {"silu", silu},       {"floor", floor},     {"ceil", ceil},     {"round", round},
      {"trunc", trunc}};
  for (const auto& [name, f] : plain) add(any_unary(name, name, f));
  add(any_unary("gelu", "gelu", [](const Tensor& x) { return gelu(x); }));
  add(any_unary("gelu_tanh", "gelu", [](const Tensor& x) { return gelu(x, "tanh"); }));
  add(any_unary("leaky_relu", "leaky_relu", [](const Tensor& x) { return leaky_relu(x); }));
  add(any_unary("elu", "elu", [](const Tensor& x) { return elu(x); }));
  add(any_unary("softplus", "softplus", [](const Tensor& x) { return softplus(x); }));
  add(any_unary("pow_scalar", "pow", [](const Tensor& x) { return pow(x, 0.5); }));
  add(any_unary("clamp", "clamp", [](const Tensor& x) { return clamp(x, -1.0, 1.0); }));

  // Bool inputs PyTorch refuses, with its reason.
  add({refuses("neg", "neg", neg, kBool, {"bool", "logical_not"}),
       refuses("abs", "abs", abs, kBool, {"bool"}),
       refuses("relu", "relu", relu, kBool, {"bool"}),
       refuses("floor", "floor", floor, kBool, {"bool"}),
       refuses("ceil", "ceil", ceil, kBool, {"bool"}),
       refuses("round", "round", round, kBool, {"bool"}),
       refuses("trunc", "trunc", trunc, kBool, {"bool"})});
  // Activations are defined on floating point only (PyTorch: "not implemented for 'Long'").
  add({refuses("silu", "silu", silu, kInt64, {"floating point", "int64"}),
       refuses("gelu", "gelu", [](const Tensor& x) { return gelu(x); }, kInt64, {"floating point", "int64"}),
       refuses("leaky_relu", "leaky_relu", [](const Tensor& x) { return leaky_relu(x); }, kInt32,
               {"floating point", "int32"}),
       refuses("elu", "elu", [](const Tensor& x) { return elu(x); }, kBool, {"floating point", "bool"}),
       refuses("softplus", "softplus", [](const Tensor& x) { return softplus(x); }, kUInt8,
               {"floating point", "uint8"})});
  // Arguments.
  add({
      {"gelu_tanh", "gelu", "an unknown approximation", [] { gelu(zeros({2}), "fast"); },
       {"approximate", "\"none\" or \"tanh\"", "\"fast\""}},
      {"clamp", "clamp_min", "an undefined input", [] { clamp_min(Tensor(), 0.0); }, {"undefined tensor"}},
      {"clamp", "clamp_max", "a result of 2^50 elements", [] { clamp_max(huge_view(), 0.0); }, {"out of memory"}},
      {"clamp", "clamp", "neither min nor max", [] { clamp(zeros({2}), std::nullopt, std::nullopt); },
       {"at least one of min and max"}},
      {"clamp", "clamp_", "in place on a leaf that requires grad", [] { leaf({2}).clamp_(0.0, 1.0); },
       {"leaf", "requires grad", "in-place"}},
      {"pow_scalar", "Tensor::pow", "an undefined tensor through the method", [] { Tensor().pow(2.0); },
       {"undefined"}},
  });
  return all;
}

NABLA_ERROR_INPUTS(unary_cases());

}  // namespace
}  // namespace nabla::testing

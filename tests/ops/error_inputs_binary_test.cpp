// Error inputs of the binary elementwise ops, comparisons, where, cast and
// copy (tests/support/error_inputs.h): shapes that do not broadcast,
// undefined operands, results too large, in-place targets that cannot hold
// the result, and integer arithmetic PyTorch refuses.
#include "support/error_inputs.h"

namespace nabla::testing {
namespace {

using BinaryOpPointer = Tensor (*)(const Tensor&, const Tensor&);

// Every broadcasting binary op: shapes that do not broadcast, an undefined
// operand, and a result of 2^50 elements.
std::vector<ErrorInput> any_binary(const std::string& op, const std::string& called, BinaryOpPointer f) {
  return {
      {op, called, "shapes that do not broadcast", [f] { f(zeros({2, 3}), zeros({4})); },
       {"shapes [2, 3] and [4] cannot be broadcast together", "dim 1: 3 vs 4"}},
      {op, called, "an undefined second operand", [f] { f(zeros({2}), Tensor()); },
       {"input 1 is an undefined tensor"}},
      {op, called, "a result of 2^50 elements", [f] { f(huge_view(), zeros({1})); }, {"out of memory", "bytes"}},
  };
}

std::vector<ErrorInput> binary_cases() {
  std::vector<ErrorInput> all;
  auto add_all = [&](std::vector<ErrorInput> v) { all.insert(all.end(), v.begin(), v.end()); };
  const std::vector<std::pair<const char*, BinaryOpPointer>> ops = {
      {"add", [](const Tensor& a, const Tensor& b) { return add(a, b); }},
      {"sub", sub},
      {"mul", mul},
      {"div", [](const Tensor& a, const Tensor& b) { return div(a, b); }},
      {"floor_divide", floor_divide},
      {"remainder", remainder},
      {"maximum", maximum},
      {"minimum", minimum},
      {"pow", [](const Tensor& a, const Tensor& b) { return pow(a, b); }},
      {"eq", eq},
      {"ne", ne},
      {"lt", lt},
      {"le", le},
      {"gt", gt},
      {"ge", ge},
      {"logical_and", logical_and},
      {"logical_or", logical_or},
      {"logical_xor", logical_xor}};
  for (const auto& [name, f] : ops) add_all(any_binary(name, name, f));
  // trunc_divide is div with rounding_mode "trunc".
  add_all(any_binary("trunc_divide", "div", [](const Tensor& a, const Tensor& b) { return div(a, b, "trunc"); }));

  Tensor i64 = tensor({1.0, 2.0}, dtype(kInt64));
  add_all({
      // Integer arithmetic PyTorch refuses.
      {"floor_divide", "floor_divide", "integer division by zero",
       [i64] { floor_divide(i64, zeros({2}, dtype(kInt64))); }, {"integer division by zero"}},
      {"floor_divide", "div", "integer division by zero (rounding_mode floor)",
       [i64] { div(i64, zeros({2}, dtype(kInt64)), "floor"); }, {"integer division by zero"}},
      {"trunc_divide", "div", "integer division by zero (rounding_mode trunc)",
       [i64] { div(i64, zeros({2}, dtype(kInt64)), "trunc"); }, {"integer division by zero"}},
      {"remainder", "remainder", "integer division by zero", [i64] { remainder(i64, zeros({2}, dtype(kInt64))); },
       {"integer division by zero"}},
      {"pow", "pow", "an integer to a negative integer power", [i64] { pow(i64, -1); },
       {"negative integer powers"}},
      // Bool operands PyTorch refuses, with tensors or numbers.
      {"sub", "sub", "a bool tensor", [] { sub(ones({2}, dtype(kBool)), ones({2}, dtype(kBool))); },
       {"bool", "logical_xor"}},
      {"sub", "sub", "the number true", [] { sub(ones({2}), true); }, {"bool", "logical_xor"}},
      {"sub", "sub", "a bool tensor minus a number", [] { sub(1, ones({2}, dtype(kBool))); }, {"bool"}},
      {"pow", "pow", "bool base and exponent", [] { pow(ones({2}, dtype(kBool)), true); }, {"bool"}},
      {"add", "add", "a floating alpha for integer inputs", [i64] { add(i64, i64, 0.5); },
       {"alpha", "floating"}},
      {"div", "div", "an unknown rounding mode", [] { div(zeros({2}), ones({2}), "round"); },
       {"rounding_mode", "\"round\""}},
      // In place: the target must hold the broadcast result, and not be a leaf that requires grad.
      {"add", "add_", "in place into a smaller target", [] { zeros({3}).add_(zeros({2, 3})); },
       {"the result has shape [2, 3]", "in-place target has shape [3]"}},
      {"sub", "sub_", "in place on a leaf that requires grad", [] { leaf({2}).sub_(ones({2})); },
       {"leaf", "requires grad", "in-place"}},
      {"mul", "mul_", "in place: a float result into an integer target",
       [] { zeros({2}, dtype(kInt64)).mul_(full({2}, 0.5)); }, {"float32", "can't be cast", "int64"}},
      {"div", "div_", "in place into a target of another shape", [] { zeros({1}).div_(ones({4})); },
       {"[4]", "in-place target has shape [1]"}},
      // copy_: the source must broadcast to the target.
      {"copy", "copy_", "a source that does not broadcast to the target", [] { zeros({2, 3}).copy_(zeros({4})); },
       {"source of shape [4]", "[2, 3]"}},
      {"copy", "copy_", "an undefined source", [] { zeros({2}).copy_(Tensor()); }, {"undefined"}},
      {"copy", "copy_", "into a leaf that requires grad", [] { leaf({2}).copy_(ones({2})); },
       {"leaf", "requires grad", "in-place"}},
      // threshold_backward (relu's backward): floating tensors that broadcast.
      {"threshold_backward", "threshold_backward", "an integer grad_output",
       [i64] { threshold_backward(i64, ones({2}), 0.0); }, {"expected floating point grad_output and self", "int64"}},
      {"threshold_backward", "threshold_backward", "shapes that do not broadcast",
       [] { threshold_backward(ones({2}), ones({3}), 0.0); }, {"[2] and [3] cannot be broadcast"}},
      {"threshold_backward", "threshold_backward", "an undefined self",
       [] { threshold_backward(ones({2}), Tensor(), 0.0); }, {"grad_output or self is an undefined tensor"}},
      // where: a bool condition and three broadcastable shapes.
      {"where", "where", "a float condition", [] { where(zeros({2}), ones({2}), zeros({2})); },
       {"condition must be a bool tensor", "float32"}},
      {"where", "where", "shapes that do not broadcast",
       [] { where(zeros({2}, dtype(kBool)), ones({3}), zeros({2})); }, {"[2] and [3] cannot be broadcast"}},
      {"where", "where", "an undefined condition", [] { where(Tensor(), ones({2}), zeros({2})); },
       {"input 0 is an undefined tensor"}},
  });
  // Unary predicates and cast.
  const std::vector<std::pair<const char*, Tensor (*)(const Tensor&)>> predicates = {
      {"logical_not", logical_not}, {"isnan", isnan}, {"isinf", isinf}, {"isfinite", isfinite}};
  for (const auto& [name, f] : predicates)
    add_all({{name, name, "undefined input", [f] { f(Tensor()); }, {"input 0 is an undefined tensor"}},
             {name, name, "a result of 2^50 elements", [f] { f(huge_view()); }, {"out of memory", "bytes"}},
             {name, name, "a result of 2^62 elements", [f] { f(overflowing_view()); }, {"out of memory", "bytes"}}});
  add_all({
      {"cast", "cast", "undefined input", [] { cast(Tensor(), kFloat64); }, {"input 0 is an undefined tensor"}},
      {"cast", "cast", "a result of 2^50 elements", [] { cast(huge_view(), kFloat64); }, {"out of memory", "bytes"}},
      {"cast", "cast", "a result whose size in bytes overflows", [] { cast(overflowing_view(), kFloat64); },
       {"overflow"}},
  });
  return all;
}

NABLA_ERROR_INPUTS(binary_cases());

}  // namespace
}  // namespace nabla::testing

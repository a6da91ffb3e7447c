// Elementwise ops: unary math, binary arithmetic with broadcasting and type
// promotion, comparisons, logical ops, where, clamp, casts, in-place forms.
#pragma once
#include <optional>
#include <string>

#include "nabla/core/tensor.h"

namespace nabla {

// unary (integer inputs are promoted to float32 where the result is real)
Tensor neg(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor sign(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor exp2(const Tensor& x);
Tensor log(const Tensor& x);
Tensor log2(const Tensor& x);
Tensor log1p(const Tensor& x);
Tensor expm1(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor reciprocal(const Tensor& x);
Tensor square(const Tensor& x);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor tan(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor relu(const Tensor& x);
// ReLU's backward (PyTorch's threshold_backward): grad_output where self >
// threshold, else 0, in one pass. relu's gradient is threshold_backward(g,
// relu(x), 0): 0 at x == 0, and a NaN output passes g. Same shapes, floating.
Tensor threshold_backward(const Tensor& grad_output, const Tensor& self, double threshold);
Tensor leaky_relu(const Tensor& x, double negative_slope = 0.01);
Tensor elu(const Tensor& x, double alpha = 1.0);
// approximate: "none" (exact, with erf) or "tanh"
Tensor gelu(const Tensor& x, const std::string& approximate = "none");
Tensor silu(const Tensor& x);
Tensor softplus(const Tensor& x, double beta = 1.0, double threshold = 20.0);
Tensor erf(const Tensor& x);
Tensor floor(const Tensor& x);
Tensor ceil(const Tensor& x);
Tensor round(const Tensor& x);  // half to even, like PyTorch
Tensor trunc(const Tensor& x);
Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
Tensor clamp_min(const Tensor& x, const Scalar& min);
Tensor clamp_max(const Tensor& x, const Scalar& max);
Tensor pow(const Tensor& x, const Scalar& exponent);
Tensor pow(const Tensor& x, const Tensor& exponent);
Tensor pow(const Scalar& base, const Tensor& exponent);

// Binary arithmetic (broadcasting). Every binary op also takes a number
// (Scalar: bool, integer or floating) on either side, where PyTorch takes a
// Python number: the result dtype follows PyTorch's rules for Python numbers
// (torch.result_type(tensor, number): the tensor's dtype unless the number is
// of a higher category — int32 tensor + 2 is int32, + 2.5 is float32).
Tensor add(const Tensor& a, const Tensor& b);
Tensor add(const Tensor& a, const Scalar& b);
Tensor add(const Scalar& a, const Tensor& b);
Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha);  // a + alpha * b
Tensor add(const Tensor& a, const Scalar& b, const Scalar& alpha);
Tensor add(const Scalar& a, const Tensor& b, const Scalar& alpha);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Scalar& b);
Tensor sub(const Scalar& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha);  // a - alpha * b
Tensor sub(const Tensor& a, const Scalar& b, const Scalar& alpha);
Tensor sub(const Scalar& a, const Tensor& b, const Scalar& alpha);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Scalar& b);
Tensor mul(const Scalar& a, const Tensor& b);
// rounding_mode: "" (true division), "floor" or "trunc"
Tensor div(const Tensor& a, const Tensor& b, const std::string& rounding_mode = "");
Tensor div(const Tensor& a, const Scalar& b, const std::string& rounding_mode = "");
Tensor div(const Scalar& a, const Tensor& b, const std::string& rounding_mode = "");
Tensor floor_divide(const Tensor& a, const Tensor& b);
Tensor floor_divide(const Tensor& a, const Scalar& b);
Tensor floor_divide(const Scalar& a, const Tensor& b);
Tensor remainder(const Tensor& a, const Tensor& b);  // sign of the divisor, like Python's %
Tensor remainder(const Tensor& a, const Scalar& b);
Tensor remainder(const Scalar& a, const Tensor& b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor maximum(const Tensor& a, const Scalar& b);  // maximum(matmul(x, w), 0.0): TensorFlow's ReLU
Tensor maximum(const Scalar& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Scalar& b);
Tensor minimum(const Scalar& a, const Tensor& b);

// comparisons and logic: bool results (a number is compared in the dtype
// PyTorch promotes to: int tensor == 2.5 compares as float32)
Tensor eq(const Tensor& a, const Tensor& b);
Tensor eq(const Tensor& a, const Scalar& b);
Tensor eq(const Scalar& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Scalar& b);
Tensor ne(const Scalar& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Scalar& b);
Tensor lt(const Scalar& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Scalar& b);
Tensor le(const Scalar& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Scalar& b);
Tensor gt(const Scalar& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Scalar& b);
Tensor ge(const Scalar& a, const Tensor& b);
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_and(const Tensor& a, const Scalar& b);
Tensor logical_and(const Scalar& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Scalar& b);
Tensor logical_or(const Scalar& a, const Tensor& b);
Tensor logical_xor(const Tensor& a, const Tensor& b);
Tensor logical_xor(const Tensor& a, const Scalar& b);
Tensor logical_xor(const Scalar& a, const Tensor& b);
Tensor logical_not(const Tensor& x);
Tensor isnan(const Tensor& x);
Tensor isinf(const Tensor& x);
Tensor isfinite(const Tensor& x);
// a where condition is true, else b; either value may be a number. Two
// numbers give a tensor of their own result type (float32 for a floating one).
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
Tensor where(const Tensor& condition, const Tensor& a, const Scalar& b);
Tensor where(const Tensor& condition, const Scalar& a, const Tensor& b);
Tensor where(const Tensor& condition, const Scalar& a, const Scalar& b);

// dtype conversion (differentiable between floating dtypes)
Tensor cast(const Tensor& x, DType dtype);

// A 0-dim tensor holding s, with the dtype `x op s` should have (PyTorch's
// rules for Python numbers: the tensor's dtype unless s is of a higher category).
Tensor scalar_tensor_like(const Scalar& s, const Tensor& x);
Tensor scalar_tensor(const Scalar& s, TensorOptions options = {});

// operators
Tensor operator-(const Tensor& x);
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, const Scalar& b);
Tensor operator-(const Tensor& a, const Scalar& b);
Tensor operator*(const Tensor& a, const Scalar& b);
Tensor operator/(const Tensor& a, const Scalar& b);
Tensor operator+(const Scalar& a, const Tensor& b);
Tensor operator-(const Scalar& a, const Tensor& b);
Tensor operator*(const Scalar& a, const Tensor& b);
Tensor operator/(const Scalar& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Scalar& b);
Tensor operator!=(const Tensor& a, const Scalar& b);
Tensor operator<(const Tensor& a, const Scalar& b);
Tensor operator<=(const Tensor& a, const Scalar& b);
Tensor operator>(const Tensor& a, const Scalar& b);
Tensor operator>=(const Tensor& a, const Scalar& b);
Tensor operator==(const Scalar& a, const Tensor& b);  // 0 < x, as Python's reflected comparisons
Tensor operator!=(const Scalar& a, const Tensor& b);
Tensor operator<(const Scalar& a, const Tensor& b);
Tensor operator<=(const Scalar& a, const Tensor& b);
Tensor operator>(const Scalar& a, const Tensor& b);
Tensor operator>=(const Scalar& a, const Tensor& b);
Tensor operator&&(const Tensor& a, const Tensor& b);
Tensor operator||(const Tensor& a, const Tensor& b);
Tensor operator!(const Tensor& x);

// The broadcast shape of two shapes; throws naming `op` if they don't broadcast.
Shape broadcast_shapes(const Shape& a, const Shape& b, std::string_view op);
bool is_expandable_to(const Shape& shape, const Shape& target);

}  // namespace nabla

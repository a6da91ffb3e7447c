// equal, isclose and allclose: composites of comparisons and reductions,
// written as PyTorch 1.13 computes them (aten/src/ATen/native/TensorCompare.cpp)
// so that the edges agree: infinities, NaN, integer and bool inputs.
#include "nabla/core/user_op.h"
#include "nabla/ops/ops.h"

namespace nabla {

bool equal(const Tensor& a, const Tensor& b) try {
  NABLA_CHECK(a.defined(), "equal: input 0 is an undefined tensor");
  NABLA_CHECK(b.defined(), "equal: input 1 is an undefined tensor");
  if (a.sizes() != b.sizes()) return false;
  return all(eq(a, b)).item<bool>();
} catch (const Error&) {
  detail::rethrow_naming("equal");
}

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) try {
  NABLA_CHECK(a.defined(), "isclose: input 0 is an undefined tensor");
  NABLA_CHECK(b.defined(), "isclose: input 1 is an undefined tensor");
  NABLA_CHECK(a.dtype() == b.dtype(), "isclose: the inputs must have the same dtype, got ", a.dtype(), " and ",
              b.dtype(), " (convert one with .to(dtype))");
  NABLA_CHECK(rtol >= 0, "isclose: rtol must be greater than or equal to zero, got ", rtol);
  NABLA_CHECK(atol >= 0, "isclose: atol must be greater than or equal to zero, got ", atol);
  // Equal values are close, infinities included (inf - inf is NaN below).
  Tensor close = eq(a, b);
  if (equal_nan && is_floating(a.dtype())) close = logical_or(close, logical_and(isnan(a), isnan(b)));
  // Zero tolerances: an equality test (the difference below could round to 0).
  if (rtol == 0 && atol == 0) return close;
  // bool inputs are compared as float32 (PyTorch's default dtype); integer
  // differences are taken in the integer dtype and compared in float32.
  Tensor fa = a.dtype() == kBool ? a.to(kFloat32) : a, fb = b.dtype() == kBool ? b.to(kFloat32) : b;
  Tensor allowed = add(abs(mul(fb, rtol)), atol);
  Tensor actual = abs(sub(fa, fb));
  return logical_or(close, logical_and(isfinite(actual), le(actual, allowed)));
} catch (const Error&) {
  detail::rethrow_naming("isclose");
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) try {
  return all(isclose(a, b, rtol, atol, equal_nan)).item<bool>();
} catch (const Error&) {
  detail::rethrow_naming("allclose");
}

}  // namespace nabla

// Binary elementwise ops with broadcasting and type promotion. Gradients may
// come out with the broadcast shape: the engine sums them back to each
// input's shape (see Note [Backward order]), so rules here ignore broadcasting.
#include "nabla/core/user_op.h"
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/ops.h"

namespace nabla {
namespace {

using detail::binary_op;

// copy: the result is input 1 converted to input 0's dtype and shape.
OutputMetas infer_copy(const OpDef& op, Inputs in, const Attrs&) {
  NABLA_CHECK(is_expandable_to(in[1].sizes(), in[0].sizes()), op.name, "_: source of shape ", in[1].sizes(),
              " cannot be broadcast to the target's shape ", in[0].sizes());
  return {{in[0].sizes(), in[0].dtype()}};
}

// max/min gradient: all to the larger input; split evenly on ties. An input
// is only blocked where it strictly loses, so where either is NaN (the
// result is NaN) both get the whole gradient, as in PyTorch.
TensorList maxmin_grad(GradCtx& c, bool is_max) {
  Tensor a = c.input(0), b = c.input(1);
  const Tensor& g = c.grad();
  Tensor zero = zeros({}, TensorOptions(g.dtype()).device(g.device()));
  Tensor share = where(a == b, g * 0.5, g);
  Tensor a_loses = is_max ? (a < b) : (a > b), b_loses = is_max ? (a > b) : (a < b);
  return {c.needs_grad(0) ? where(a_loses, zero, share) : Tensor(),
          c.needs_grad(1) ? where(b_loses, zero, share) : Tensor()};
}

}  // namespace

// add, sub and mul compute float16/bfloat16 in one pass (kernels/cpu/elementwise.h).
extern constinit const OpDef add_op = binary_op("add",
    [](GradCtx& c) -> TensorList { return {c.grad(), c.grad()}; }, Promote::Common, 0, kNativeReducedFloat);
extern constinit const OpDef sub_op = binary_op("sub",
    [](GradCtx& c) -> TensorList { return {c.grad(), -c.grad()}; }, Promote::Common, 0, kNativeReducedFloat);
extern constinit const OpDef mul_op = binary_op("mul", [](GradCtx& c) -> TensorList {
  return {c.needs_grad(0) ? c.grad() * c.input(1) : Tensor(), c.needs_grad(1) ? c.grad() * c.input(0) : Tensor()};
}, Promote::Common, 3, kNativeReducedFloat);
extern constinit const OpDef div_op = binary_op("div", [](GradCtx& c) -> TensorList {
  Tensor b = c.input(1);
  Tensor ga = c.grad() / b;
  return {ga, c.needs_grad(1) ? -(ga * c.input(0) / b) : Tensor()};
}, Promote::CommonFloat);
extern constinit const OpDef floor_divide_op = binary_op("floor_divide", [](GradCtx& c) -> TensorList {
                                          return {zeros_like(c.grad()), zeros_like(c.grad())};
                                        }, Promote::Common, 0);
extern constinit const OpDef trunc_divide_op = binary_op("trunc_divide", [](GradCtx& c) -> TensorList {
                                          return {zeros_like(c.grad()), zeros_like(c.grad())};
                                        }, Promote::Common, 0);
extern constinit const OpDef remainder_op = binary_op("remainder", [](GradCtx& c) -> TensorList {
  return {c.grad(), c.needs_grad(1) ? -(c.grad() * floor_divide(c.input(0), c.input(1))) : Tensor()};
});
extern constinit const OpDef maximum_op = binary_op("maximum", [](GradCtx& c) { return maxmin_grad(c, true); });
extern constinit const OpDef minimum_op = binary_op("minimum", [](GradCtx& c) { return maxmin_grad(c, false); });
extern constinit const OpDef pow_op = binary_op("pow", [](GradCtx& c) -> TensorList {
  Tensor a = c.input(0), b = c.input(1);
  Tensor ga = c.needs_grad(0) ? where(b == 0.0, zeros_like(c.grad()), c.grad() * b * pow(a, b - 1.0)) : Tensor();
  Tensor gb;
  if (c.needs_grad(1)) {
    // d/db a^b = a^b log a, taken as 0 where a == 0 and b >= 0 (PyTorch's
    // convention; for b < 0 it is inf * -inf = -inf, as there).
    Tensor at_zero = logical_and(a == 0.0, b >= 0.0);
    Tensor safe_log = log(where(at_zero, ones_like(a), a));
    gb = where(at_zero, zeros_like(a), c.grad() * pow(a, b) * safe_log);
  }
  return {ga, gb};
});
extern constinit const OpDef copy_op{.name = "copy",
                    .num_inputs = 2,
                    .infer = infer_copy,
                    .grad = [](GradCtx& c) -> TensorList {
                      return {Tensor(), c.grad().to(c.input_dtype(1))};
                    },
                    .flags = kInplaceOk | kNativeReducedFloat,
                    .save_inputs = 0};

namespace {
detail::RegisterOps register_binary{&add_op,       &sub_op,     &mul_op,     &div_op, &floor_divide_op,
                                    &trunc_divide_op, &remainder_op, &maximum_op, &minimum_op, &pow_op, &copy_op};
}

namespace {
// PyTorch refuses subtraction with a bool operand (a tensor or the number
// true/false): it is rarely what was meant.
void check_no_bool_subtraction(bool a_is_bool, bool b_is_bool) {
  NABLA_CHECK(!a_is_bool && !b_is_bool, "sub: subtraction with a bool operand is not supported; "
              "use logical_xor() (or logical_not() to invert a mask) instead");
}
bool is_bool_tensor(const Tensor& x) { return x.defined() && x.dtype() == kBool; }
// alpha * b in the result type of (a, b), with PyTorch's checks on alpha
// (alpha_check): the sum a + alpha * b then keeps that type.
Tensor times_alpha(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  NABLA_CHECK(a.defined() && b.defined(), "an input is an undefined tensor");
  const Tensor ab[2] = {a, b};
  DType t = result_type(ab);
  NABLA_CHECK(!alpha.is_bool() || t == kBool, "a bool alpha is only supported for bool results, got ", t);
  NABLA_CHECK(is_floating(t) || !alpha.is_floating(), "alpha must not be a floating point number for ", t,
              " inputs, got ", alpha);
  return mul(b.to(t), full({}, alpha, TensorOptions(t).device(b.device())));
}
}  // namespace

Tensor add(const Tensor& a, const Tensor& b) { return call1(add_op, {a, b}); }
Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) try {
  return add(a, times_alpha(a, b, alpha));
} catch (const Error&) {
  detail::rethrow_naming("add");
}
Tensor sub(const Tensor& a, const Tensor& b) {
  check_no_bool_subtraction(is_bool_tensor(a), is_bool_tensor(b));
  return call1(sub_op, {a, b});
}
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) try {
  check_no_bool_subtraction(is_bool_tensor(a), is_bool_tensor(b));
  return sub(a, times_alpha(a, b, alpha));
} catch (const Error&) {
  detail::rethrow_naming("sub");
}
Tensor mul(const Tensor& a, const Tensor& b) { return call1(mul_op, {a, b}); }
Tensor div(const Tensor& a, const Tensor& b, const std::string& rounding_mode) try {
  if (rounding_mode.empty()) return call1(div_op, {a, b});
  if (rounding_mode == "floor") return call1(floor_divide_op, {a, b});
  NABLA_CHECK(rounding_mode == "trunc", "div: rounding_mode must be \"\", \"floor\" or \"trunc\", got \"",
              rounding_mode, "\"");
  return call1(trunc_divide_op, {a, b});
} catch (const Error&) {
  detail::rethrow_naming("div");  // not floor_divide or trunc_divide: Note [User-facing op names]
}
Tensor floor_divide(const Tensor& a, const Tensor& b) { return call1(floor_divide_op, {a, b}); }
Tensor remainder(const Tensor& a, const Tensor& b) { return call1(remainder_op, {a, b}); }
Tensor maximum(const Tensor& a, const Tensor& b) { return call1(maximum_op, {a, b}); }
Tensor minimum(const Tensor& a, const Tensor& b) { return call1(minimum_op, {a, b}); }
Tensor pow(const Tensor& a, const Tensor& b) {
  // PyTorch has no bool power ("pow" not implemented for 'Bool').
  NABLA_CHECK(!(is_bool_tensor(a) && is_bool_tensor(b)), "pow: not defined for bool base and exponent; "
              "convert one of them to an integer or floating dtype");
  return call1(pow_op, {a, b});
}
Tensor pow(const Scalar& a, const Tensor& b) try {
  return pow(scalar_tensor_like(a, b), b);
} catch (const Error&) {
  detail::rethrow_naming("pow");
}

// ---- a number on either side (NABLA_SCALAR_FORMS: ops/elementwise_common.h)
NABLA_SCALAR_FORMS(add)
NABLA_SCALAR_FORMS(mul)
NABLA_SCALAR_FORMS(floor_divide)
NABLA_SCALAR_FORMS(remainder)
NABLA_SCALAR_FORMS(maximum)
NABLA_SCALAR_FORMS(minimum)

Tensor add(const Tensor& a, const Scalar& b, const Scalar& alpha) try {
  return add(a, scalar_tensor_like(b, a), alpha);
} catch (const Error&) {
  detail::rethrow_naming("add");
}
Tensor add(const Scalar& a, const Tensor& b, const Scalar& alpha) try {
  return add(scalar_tensor_like(a, b), b, alpha);
} catch (const Error&) {
  detail::rethrow_naming("add");
}
Tensor sub(const Tensor& a, const Scalar& b) try {
  check_no_bool_subtraction(is_bool_tensor(a), b.is_bool());
  return sub(a, scalar_tensor_like(b, a));
} catch (const Error&) {
  detail::rethrow_naming("sub");
}
Tensor sub(const Scalar& a, const Tensor& b) try {
  check_no_bool_subtraction(a.is_bool(), is_bool_tensor(b));
  return sub(scalar_tensor_like(a, b), b);
} catch (const Error&) {
  detail::rethrow_naming("sub");
}
Tensor sub(const Tensor& a, const Scalar& b, const Scalar& alpha) try {
  check_no_bool_subtraction(is_bool_tensor(a), b.is_bool());
  return sub(a, scalar_tensor_like(b, a), alpha);
} catch (const Error&) {
  detail::rethrow_naming("sub");
}
Tensor sub(const Scalar& a, const Tensor& b, const Scalar& alpha) try {
  check_no_bool_subtraction(a.is_bool(), is_bool_tensor(b));
  return sub(scalar_tensor_like(a, b), b, alpha);
} catch (const Error&) {
  detail::rethrow_naming("sub");
}
Tensor div(const Tensor& a, const Scalar& b, const std::string& rounding_mode) try {
  return div(a, scalar_tensor_like(b, a), rounding_mode);
} catch (const Error&) {
  detail::rethrow_naming("div");
}
Tensor div(const Scalar& a, const Tensor& b, const std::string& rounding_mode) try {
  return div(scalar_tensor_like(a, b), b, rounding_mode);
} catch (const Error&) {
  detail::rethrow_naming("div");
}

Tensor operator-(const Tensor& x) { return neg(x); }
Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, scalar_tensor_like(b, a)); }
Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, scalar_tensor_like(b, a)); }
Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, scalar_tensor_like(b, a)); }
Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, scalar_tensor_like(b, a)); }
Tensor operator+(const Scalar& a, const Tensor& b) { return add(scalar_tensor_like(a, b), b); }
Tensor operator-(const Scalar& a, const Tensor& b) { return sub(scalar_tensor_like(a, b), b); }
Tensor operator*(const Scalar& a, const Tensor& b) { return mul(scalar_tensor_like(a, b), b); }
Tensor operator/(const Scalar& a, const Tensor& b) { return div(scalar_tensor_like(a, b), b); }

// ---- in-place forms (Tensor methods) --------------------------------------
namespace {
Tensor& inplace(const OpDef& op, Tensor& self, const Tensor& other) {
  const Tensor ins[2] = {self, other};
  return call_inplace(op, self, ins);
}
}  // namespace
Tensor& Tensor::add_(const Tensor& o) {
  checked("Tensor::add_");
  return inplace(add_op, *this, o);
}
Tensor& Tensor::add_(const Scalar& o) {
  checked("Tensor::add_");
  return inplace(add_op, *this, scalar_tensor_like(o, *this));
}
Tensor& Tensor::sub_(const Tensor& o) {
  checked("Tensor::sub_");
  return inplace(sub_op, *this, o);
}
Tensor& Tensor::sub_(const Scalar& o) {
  checked("Tensor::sub_");
  return inplace(sub_op, *this, scalar_tensor_like(o, *this));
}
Tensor& Tensor::mul_(const Tensor& o) {
  checked("Tensor::mul_");
  return inplace(mul_op, *this, o);
}
Tensor& Tensor::mul_(const Scalar& o) {
  checked("Tensor::mul_");
  return inplace(mul_op, *this, scalar_tensor_like(o, *this));
}
Tensor& Tensor::div_(const Tensor& o) {
  checked("Tensor::div_");
  return inplace(div_op, *this, o);
}
Tensor& Tensor::div_(const Scalar& o) {
  checked("Tensor::div_");
  return inplace(div_op, *this, scalar_tensor_like(o, *this));
}
Tensor& Tensor::copy_(const Tensor& src) {
  checked("Tensor::copy_");
  // From another device: moved to this one first (differentiably), then copied.
  if (src.defined() && !src.is_symbolic() && !is_symbolic() && src.device() != device())
    return inplace(copy_op, *this, src.to(device()));
  return inplace(copy_op, *this, src);
}

}  // namespace nabla

// Unary elementwise ops: one table entry each, with its scalar functor and
// its gradient rule written in nabla ops (so it can be differentiated again).
#include <cmath>
#include <limits>
#include <numbers>

#include "nabla/core/user_op.h"
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/ops.h"

namespace nabla {
namespace {

using detail::unary_float_op;
constexpr double kLn2 = std::numbers::ln2;
constexpr double kSqrt2 = std::numbers::sqrt2;
constexpr double kInvSqrtPi = std::numbers::inv_sqrtpi;

// ---- helpers for gradient rules -------------------------------------------
constexpr OpDef same_dtype_op(std::string_view name, GradFn grad, uint32_t save = 1, uint32_t flags = 0) {
  return OpDef{.name = name,
               .infer = detail::infer_unary,
               .grad = grad,
               .flags = kElementwise | kInplaceOk | flags,
               .save_inputs = save};
}

TensorList zero_grad(GradCtx& c) { return {zeros_like(c.grad())}; }

}  // namespace

// ---- table entries ------------------------------------------------------
extern constinit const OpDef neg_op = same_dtype_op("neg", [](GradCtx& c) -> TensorList { return {-c.grad()}; }, 0);
extern constinit const OpDef abs_op = same_dtype_op("abs",
    [](GradCtx& c) -> TensorList { return {c.grad() * sign(c.input(0))}; });
extern constinit const OpDef sign_op = same_dtype_op("sign", zero_grad, 0);
extern constinit const OpDef square_op = same_dtype_op("square", [](GradCtx& c) -> TensorList {
  return {c.grad() * c.input(0) * 2.0};
});
// PyTorch's rule: threshold_backward(grad, out, 0), one pass over the data
// (blocked where out <= 0, so a NaN output passes the gradient).
extern constinit const OpDef relu_op = same_dtype_op("relu", [](GradCtx& c) -> TensorList {
  return {threshold_backward(c.grad(), c.output(0), 0.0)};
}, 0, kSaveOutputs | kNativeReducedFloat);  // float16/bfloat16 in one pass (kernels/cpu/elementwise.h)
// threshold_backward(grad_output, self): grad_output where self > threshold,
// else 0 (NaN self passes it; a NaN grad_output stays out where blocked).
// Linear in grad_output, so its own gradient is itself with the same mask;
// self only picks the mask (piecewise constant: a zero gradient).
extern constinit const OpDef threshold_backward_op{
    .name = "threshold_backward",
    .num_inputs = 2,
    .attr_names = "threshold",
    .infer = detail::infer_binary,
    .grad = [](GradCtx& c) -> TensorList {
      // self's gradient: zeros, as PyTorch's (piecewise constant in self).
      return {threshold_backward(c.grad(), c.input(1), c.attrs().f(0)),
              c.needs_grad(1) ? zeros_like(c.input(1)) : Tensor()};
    },
    .flags = kElementwise | kInplaceOk | kNativeReducedFloat,  // float16/bfloat16 in one pass (kernels/cpu/binary_ops.cpp)
    .promote = Promote::Common,
    .save_inputs = 0b10};

extern constinit const OpDef exp_op = unary_float_op("exp",
    [](GradCtx& c) -> TensorList { return {c.grad() * c.output(0)}; }, true);
extern constinit const OpDef exp2_op = unary_float_op("exp2",
    [](GradCtx& c) -> TensorList { return {c.grad() * c.output(0) * kLn2}; }, true);
extern constinit const OpDef log_op = unary_float_op("log",
    [](GradCtx& c) -> TensorList { return {c.grad() / c.input(0)}; });
extern constinit const OpDef log2_op = unary_float_op("log2",
    [](GradCtx& c) -> TensorList { return {c.grad() / (c.input(0) * kLn2)}; });
extern constinit const OpDef log1p_op = unary_float_op("log1p",
    [](GradCtx& c) -> TensorList { return {c.grad() / (c.input(0) + 1.0)}; });
extern constinit const OpDef expm1_op = unary_float_op("expm1",
    [](GradCtx& c) -> TensorList { return {c.grad() * (c.output(0) + 1.0)}; }, true);
extern constinit const OpDef sqrt_op = unary_float_op("sqrt",
    [](GradCtx& c) -> TensorList { return {c.grad() / (c.output(0) * 2.0)}; }, true);
extern constinit const OpDef rsqrt_op = unary_float_op("rsqrt", [](GradCtx& c) -> TensorList {
  Tensor out = c.output(0);
  return {c.grad() * out * out * out * -0.5};
}, true);
extern constinit const OpDef reciprocal_op = unary_float_op("reciprocal", [](GradCtx& c) -> TensorList {
  Tensor out = c.output(0);
  return {-(c.grad() * out * out)};
}, true);
extern constinit const OpDef sin_op = unary_float_op("sin",
    [](GradCtx& c) -> TensorList { return {c.grad() * cos(c.input(0))}; });
extern constinit const OpDef cos_op = unary_float_op("cos",
    [](GradCtx& c) -> TensorList { return {-(c.grad() * sin(c.input(0)))}; });
extern constinit const OpDef tan_op = unary_float_op("tan", [](GradCtx& c) -> TensorList {
  Tensor out = c.output(0);
  return {c.grad() * (out * out + 1.0)};
}, true);
extern constinit const OpDef tanh_op = unary_float_op("tanh", [](GradCtx& c) -> TensorList {
  Tensor out = c.output(0);
  return {c.grad() * (1.0 - out * out)};
}, true);
extern constinit const OpDef sigmoid_op = unary_float_op("sigmoid", [](GradCtx& c) -> TensorList {
  Tensor out = c.output(0);
  return {c.grad() * out * (1.0 - out)};
}, true);
extern constinit const OpDef erf_op = unary_float_op("erf", [](GradCtx& c) -> TensorList {
  Tensor x = c.input(0);
  return {c.grad() * exp(-(x * x)) * (2.0 * kInvSqrtPi)};
});
extern constinit const OpDef silu_op = unary_float_op("silu", [](GradCtx& c) -> TensorList {
  Tensor x = c.input(0);
  Tensor s = sigmoid(x);
  return {c.grad() * s * (1.0 + x * (1.0 - s))};
});
extern constinit const OpDef gelu_op = unary_float_op("gelu", [](GradCtx& c) -> TensorList {
  Tensor x = c.input(0);
  Tensor cdf = (erf(x * (1.0 / kSqrt2)) + 1.0) * 0.5;
  Tensor pdf = exp(x * x * -0.5) * (kInvSqrtPi / kSqrt2);
  return {c.grad() * (cdf + x * pdf)};
});
extern constinit const OpDef gelu_tanh_op = unary_float_op("gelu_tanh", [](GradCtx& c) -> TensorList {
  Tensor x = c.input(0);
  const double k = kSqrt2 * kInvSqrtPi;
  Tensor inner = (x + x * x * x * 0.044715) * k;
  Tensor t = tanh(inner);
  Tensor dinner = (x * x * (3 * 0.044715) + 1.0) * k;
  return {c.grad() * ((t + 1.0) * 0.5 + x * 0.5 * (1.0 - t * t) * dinner)};
});
extern constinit const OpDef floor_op = unary_float_op("floor", zero_grad);
extern constinit const OpDef ceil_op = unary_float_op("ceil", zero_grad);
extern constinit const OpDef round_op = unary_float_op("round", zero_grad);
extern constinit const OpDef trunc_op = unary_float_op("trunc", zero_grad);
extern constinit const OpDef leaky_relu_op = unary_float_op("leaky_relu", [](GradCtx& c) -> TensorList {
  Tensor x = c.input(0);
  return {where(x > 0, c.grad(), c.grad() * c.attrs().f(0))};
}, false, "negative_slope");
extern constinit const OpDef elu_op = unary_float_op("elu", [](GradCtx& c) -> TensorList {
  Tensor x = c.input(0);
  double alpha = c.attrs().f(0);
  return {where(x > 0, c.grad(), c.grad() * exp(x) * alpha)};
}, false, "alpha");
extern constinit const OpDef softplus_op = unary_float_op("softplus", [](GradCtx& c) -> TensorList {
  Tensor x = c.input(0);
  double beta = c.attrs().f(0), threshold = c.attrs().f(1);
  return {where(x * beta > threshold, c.grad(), c.grad() * sigmoid(x * beta))};
}, false, "beta,threshold");
extern constinit const OpDef pow_scalar_op = unary_float_op("pow_scalar", [](GradCtx& c) -> TensorList {
  double e = c.attrs().f(0);
  if (e == 0.0) return {zeros_like(c.grad())};
  return {c.grad() * pow(c.input(0), e - 1.0) * e};
}, false, "exponent");
extern constinit const OpDef clamp_op{.name = "clamp",
                     .attr_names = "min,max",
                     .infer = detail::infer_unary,
                     .grad = [](GradCtx& c) -> TensorList {
                       Tensor x = c.input(0);
                       Tensor keep = ones_like(x, dtype(kBool));
                       if (!c.attrs().is_none(0)) keep = logical_and(keep, x >= c.attrs().scalar(0));
                       if (!c.attrs().is_none(1)) keep = logical_and(keep, x <= c.attrs().scalar(1));
                       return {c.grad() * keep.to(x.dtype())};
                     },
                     .flags = kElementwise | kInplaceOk};

namespace {
detail::RegisterOps register_unary{&neg_op, &abs_op, &sign_op, &square_op, &relu_op, &exp_op, &exp2_op, &log_op,
                                   &log2_op, &log1p_op, &expm1_op, &sqrt_op, &rsqrt_op, &reciprocal_op, &sin_op,
                                   &cos_op, &tan_op, &tanh_op, &sigmoid_op, &erf_op, &silu_op, &gelu_op,
                                   &gelu_tanh_op, &floor_op, &ceil_op, &round_op, &trunc_op, &leaky_relu_op,
                                   &elu_op, &softplus_op, &pow_scalar_op, &clamp_op, &threshold_backward_op};
}

// ---- public functions ----------------------------------------------------
namespace {
// PyTorch refuses these ops on bool tensors, and activations on integer ones.
// An undefined input goes on to the op, whose check names it.
const Tensor& not_bool(const Tensor& x, std::string_view op, std::string_view hint = "") {
  if (x.defined() && x.dtype() == kBool) fail(op, ": not supported for bool tensors", hint);
  return x;
}
const Tensor& floating_only(const Tensor& x, std::string_view op) {
  if (x.defined() && !is_floating(x.dtype()))
    fail(op, ": expected a floating point input, got ", x.dtype(), "; convert it with .to(kFloat32)");
  return x;
}
// floor, ceil, round, trunc: integers are already whole.
Tensor rounded(const OpDef& op, const Tensor& x) {
  if (!x.defined() || is_floating(x.dtype())) return call1(op, {x});
  return not_bool(x, op.name).clone();
}
}  // namespace

Tensor neg(const Tensor& x) {
  return call1(neg_op, {not_bool(x, "neg", "; to invert a mask use logical_not()")});
}
Tensor abs(const Tensor& x) { return call1(abs_op, {not_bool(x, "abs")}); }
Tensor sign(const Tensor& x) { return call1(sign_op, {x}); }
Tensor square(const Tensor& x) { return call1(square_op, {x}); }
Tensor relu(const Tensor& x) { return call1(relu_op, {not_bool(x, "relu")}); }
Tensor threshold_backward(const Tensor& grad_output, const Tensor& self, double threshold) {
  NABLA_CHECK(grad_output.defined() && self.defined(),
              "threshold_backward: grad_output or self is an undefined tensor");
  NABLA_CHECK(is_floating(grad_output.dtype()) && is_floating(self.dtype()),
              "threshold_backward: expected floating point grad_output and self, got ", grad_output.dtype(), " and ",
              self.dtype());
  return call1(threshold_backward_op, {grad_output, self}, {threshold});
}
Tensor exp(const Tensor& x) { return call1(exp_op, {x}); }
Tensor exp2(const Tensor& x) { return call1(exp2_op, {x}); }
Tensor log(const Tensor& x) { return call1(log_op, {x}); }
Tensor log2(const Tensor& x) { return call1(log2_op, {x}); }
Tensor log1p(const Tensor& x) { return call1(log1p_op, {x}); }
Tensor expm1(const Tensor& x) { return call1(expm1_op, {x}); }
Tensor sqrt(const Tensor& x) { return call1(sqrt_op, {x}); }
Tensor rsqrt(const Tensor& x) { return call1(rsqrt_op, {x}); }
Tensor reciprocal(const Tensor& x) { return call1(reciprocal_op, {x}); }
Tensor sin(const Tensor& x) { return call1(sin_op, {x}); }
Tensor cos(const Tensor& x) { return call1(cos_op, {x}); }
Tensor tan(const Tensor& x) { return call1(tan_op, {x}); }
Tensor tanh(const Tensor& x) { return call1(tanh_op, {x}); }
Tensor sigmoid(const Tensor& x) { return call1(sigmoid_op, {x}); }
Tensor erf(const Tensor& x) { return call1(erf_op, {x}); }
Tensor silu(const Tensor& x) { return call1(silu_op, {floating_only(x, "silu")}); }
Tensor gelu(const Tensor& x, const std::string& approximate) try {
  floating_only(x, "gelu");
  if (approximate == "none") return call1(gelu_op, {x});
  NABLA_CHECK(approximate == "tanh", "gelu: approximate must be \"none\" or \"tanh\", got \"", approximate, "\"");
  return call1(gelu_tanh_op, {x});
} catch (const Error&) {
  detail::rethrow_naming("gelu");  // not gelu_tanh: Note [User-facing op names]
}
Tensor floor(const Tensor& x) { return rounded(floor_op, x); }
Tensor ceil(const Tensor& x) { return rounded(ceil_op, x); }
Tensor round(const Tensor& x) { return rounded(round_op, x); }
Tensor trunc(const Tensor& x) { return rounded(trunc_op, x); }
Tensor leaky_relu(const Tensor& x, double slope) {
  return call1(leaky_relu_op, {floating_only(x, "leaky_relu")}, {slope});
}
Tensor elu(const Tensor& x, double alpha) { return call1(elu_op, {floating_only(x, "elu")}, {alpha}); }
Tensor softplus(const Tensor& x, double beta, double threshold) {
  return call1(softplus_op, {floating_only(x, "softplus")}, {beta, threshold});
}
Tensor pow(const Tensor& x, const Scalar& e) try {
  if (!is_floating(x.dtype()) && !e.is_floating()) {
    NABLA_CHECK(!(e.is_integral() && e.to_int() < 0), "pow: integers to negative integer powers are not allowed (",
                x.dtype(), " tensor to the power ", e, "); use a floating tensor or exponent");
    return pow(x, scalar_tensor_like(e, x));
  }
  return call1(pow_scalar_op, {x}, {e.to_double()});
} catch (const Error&) {
  detail::rethrow_naming("pow");  // not pow_scalar: Note [User-facing op names]
}
Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max) try {
  NABLA_CHECK(min || max, "clamp: at least one of min and max must be given");
  Tensor in = x;
  if (!is_floating(x.dtype()) && ((min && min->is_floating()) || (max && max->is_floating()))) in = x.to(kFloat32);
  Tensor clamped = call1(clamp_op, {in}, {min ? AttrValue(*min) : AttrValue(), max ? AttrValue(*max) : AttrValue()});
  // PyTorch 1.13: with both bounds given and one of them NaN, NaN everywhere
  // (gradient 0, as x >= NaN is false); a lone NaN bound leaves x as it is.
  if (min && max && (std::isnan(min->to_double()) || std::isnan(max->to_double())))
    return clamped * 0.0 + std::numeric_limits<double>::quiet_NaN();
  return clamped;
} catch (const Error&) {
  detail::rethrow_naming("clamp");
}
Tensor clamp_min(const Tensor& x, const Scalar& min) try {
  return clamp(x, min, std::nullopt);
} catch (const Error&) {
  detail::rethrow_naming("clamp_min");
}
Tensor clamp_max(const Tensor& x, const Scalar& max) try {
  return clamp(x, std::nullopt, max);
} catch (const Error&) {
  detail::rethrow_naming("clamp_max");
}

}  // namespace nabla

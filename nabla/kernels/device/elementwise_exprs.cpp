#include "nabla/kernels/device/elementwise_exprs.h"

namespace nabla {
// The table entries (defined in ops/*.cpp).
extern const OpDef neg_op, abs_op, sign_op, square_op, relu_op, exp_op, exp2_op, log_op, log2_op, log1p_op, expm1_op,
    sqrt_op, rsqrt_op, reciprocal_op, sin_op, cos_op, tan_op, tanh_op, sigmoid_op, erf_op, silu_op, gelu_op,
    gelu_tanh_op, floor_op, ceil_op, round_op, trunc_op, leaky_relu_op, elu_op, softplus_op, pow_scalar_op, clamp_op,
    threshold_backward_op;
extern const OpDef add_op, sub_op, mul_op, div_op, floor_divide_op, trunc_divide_op, remainder_op, maximum_op,
    minimum_op, pow_op, copy_op;
extern const OpDef eq_op, ne_op, lt_op, le_op, gt_op, ge_op, logical_and_op, logical_or_op, logical_xor_op,
    logical_not_op, isnan_op, isinf_op, isfinite_op, where_op, cast_op, clone_op;
extern const OpDef sum_op, prod_op, amax_op, amin_op, all_op, any_op;

namespace device_c {
namespace {

// Written to give the CPU functors' results (ops/unary_ops.cpp,
// binary_ops.cpp, compare_ops.cpp), edge cases included: NaN passes relu and
// maximum, x^0.5 is sqrt, round is half-to-even (rint).
constexpr ElementwiseExpr kExprs[] = {
    // ---- unary, any dtype
    {.op = &neg_op, .float_expr = "-x", .int_expr = "-x"},
    {.op = &abs_op, .float_expr = "x < (T)0 ? -x : x", .int_expr = "x < (T)0 ? -x : x"},
    {.op = &sign_op, .float_expr = "(T)(((T)0 < x) - (x < (T)0))", .int_expr = "(T)(((T)0 < x) - (x < (T)0))"},
    {.op = &square_op, .float_expr = "x * x", .int_expr = "x * x"},
    {.op = &relu_op, .float_expr = "!(x <= (T)0) ? x : (T)0", .int_expr = "!(x <= (T)0) ? x : (T)0"},
    {.op = &clamp_op, .float_expr = "nb_clamp(x, a0, a1)", .int_expr = "nb_clamp(x, a0, a1)", .num_attrs = 2,
     .bounds = true},
    // ---- unary, floating (integer inputs are promoted before the kernel)
    {.op = &exp_op, .float_expr = "NB_EXP(x)"},
    {.op = &exp2_op, .float_expr = "NB_EXP2(x)"},
    {.op = &log_op, .float_expr = "NB_LOG(x)"},
    {.op = &log2_op, .float_expr = "NB_LOG2(x)"},
    {.op = &log1p_op, .float_expr = "NB_LOG1P(x)"},
    {.op = &expm1_op, .float_expr = "NB_EXPM1(x)"},
    {.op = &sqrt_op, .float_expr = "NB_SQRT(x)"},
    {.op = &rsqrt_op, .float_expr = "(T)1 / NB_SQRT(x)"},
    {.op = &reciprocal_op, .float_expr = "(T)1 / x"},
    {.op = &sin_op, .float_expr = "NB_SIN(x)"},
    {.op = &cos_op, .float_expr = "NB_COS(x)"},
    {.op = &tan_op, .float_expr = "NB_TAN(x)"},
    {.op = &tanh_op, .float_expr = "NB_TANH(x)"},
    {.op = &sigmoid_op, .float_expr = "(T)1 / ((T)1 + NB_EXP(-x))"},
    {.op = &erf_op, .float_expr = "NB_ERF(x)"},
    {.op = &silu_op, .float_expr = "x / ((T)1 + NB_EXP(-x))"},
    {.op = &gelu_op, .float_expr = "(T)0.5 * x * ((T)1 + NB_ERF(x * (T)0.70710678118654752440))"},
    {.op = &gelu_tanh_op,
     .float_expr = "(T)0.5 * x * ((T)1 + NB_TANH((T)0.79788456080286535588 * (x + (T)0.044715 * x * x * x)))"},
    {.op = &floor_op, .float_expr = "NB_FLOOR(x)"},
    {.op = &ceil_op, .float_expr = "NB_CEIL(x)"},
    {.op = &round_op, .float_expr = "NB_RINT(x)"},
    {.op = &trunc_op, .float_expr = "NB_TRUNC(x)"},
    {.op = &leaky_relu_op, .float_expr = "x > (T)0 ? x : x * a0", .num_attrs = 1},
    {.op = &elu_op, .float_expr = "x > (T)0 ? x : a0 * NB_EXPM1(x)", .num_attrs = 1},
    {.op = &softplus_op, .float_expr = "x * a0 > a1 ? x : NB_LOG1P(NB_EXP(x * a0)) / a0", .num_attrs = 2},
    {.op = &pow_scalar_op,
     .float_expr = "a0 == (T)0.5 ? NB_SQRT(x) : a0 == (T)-0.5 ? (T)1 / NB_SQRT(x) : NB_POW(x, a0)", .num_attrs = 1},
    // ---- binary (inputs already promoted to one dtype)
    {.op = &add_op, .float_expr = "x + y", .int_expr = "x + y"},
    {.op = &sub_op, .float_expr = "x - y", .int_expr = "x - y"},
    {.op = &mul_op, .float_expr = "x * y", .int_expr = "x * y"},
    {.op = &div_op, .float_expr = "x / y"},
    {.op = &floor_divide_op, .float_expr = "nb_floordiv(x, y)", .int_expr = "nb_ifloordiv(x, y)", .no_bool = true},
    {.op = &trunc_divide_op, .float_expr = "NB_TRUNC(x / y)", .int_expr = "nb_idiv(x, y)", .no_bool = true},
    {.op = &remainder_op, .float_expr = "nb_remainder(x, y)", .int_expr = "nb_iremainder(x, y)", .no_bool = true},
    {.op = &maximum_op, .float_expr = "NB_ISNAN(x) || NB_ISNAN(y) ? x + y : (x > y ? x : y)", .int_expr = "x > y ? x : y"},
    {.op = &minimum_op, .float_expr = "NB_ISNAN(x) || NB_ISNAN(y) ? x + y : (x < y ? x : y)", .int_expr = "x < y ? x : y"},
    {.op = &pow_op, .float_expr = "NB_POW(x, y)", .int_expr = "nb_ipow(x, y)"},
    {.op = &threshold_backward_op, .float_expr = "y <= a0 ? (T)0 : x", .num_attrs = 1},
    // ---- comparisons and predicates (bool results)
    {.op = &eq_op, .float_expr = "x == y", .int_expr = "x == y"},
    {.op = &ne_op, .float_expr = "x != y", .int_expr = "x != y"},
    {.op = &lt_op, .float_expr = "x < y", .int_expr = "x < y"},
    {.op = &le_op, .float_expr = "x <= y", .int_expr = "x <= y"},
    {.op = &gt_op, .float_expr = "x > y", .int_expr = "x > y"},
    {.op = &ge_op, .float_expr = "x >= y", .int_expr = "x >= y"},
    {.op = &logical_and_op, .float_expr = "x != (T)0 && y != (T)0", .int_expr = "x != (T)0 && y != (T)0"},
    {.op = &logical_or_op, .float_expr = "x != (T)0 || y != (T)0", .int_expr = "x != (T)0 || y != (T)0"},
    {.op = &logical_xor_op, .float_expr = "(x != (T)0) != (y != (T)0)", .int_expr = "(x != (T)0) != (y != (T)0)"},
    {.op = &logical_not_op, .float_expr = "x == (T)0", .int_expr = "x == (T)0"},
    {.op = &isnan_op, .float_expr = "NB_ISNAN(x)", .int_expr = "0"},
    {.op = &isinf_op, .float_expr = "NB_ISINF(x)", .int_expr = "0"},
    {.op = &isfinite_op, .float_expr = "NB_ISFINITE(x)", .int_expr = "1"},
    // ---- selection and conversion (the store converts to the output's dtype)
    {.op = &where_op, .float_expr = "x ? y : z", .int_expr = "x ? y : z", .compute_input = 1},
    {.op = &cast_op, .float_expr = "x", .int_expr = "x"},
    {.op = &clone_op, .float_expr = "x", .int_expr = "x"},
    {.op = &copy_op, .float_expr = "y", .int_expr = "y", .compute_input = 1, .first_input = 1},
};

// As the CPU's reduce (kernels/cpu/reduce.cpp): a NaN anywhere makes max/min NaN.
constexpr ReduceExpr kReductions[] = {
    {.op = &sum_op, .init = "0", .float_combine = "acc + x", .int_combine = "acc + x"},
    {.op = &prod_op, .init = "1", .float_combine = "acc * x", .int_combine = "acc * x"},
    {.op = &amax_op, .init = "first", .float_combine = "NB_ISNAN(x) || NB_ISNAN(acc) ? (A)NB_NAN : (x > acc ? x : acc)",
     .int_combine = "x > acc ? x : acc"},
    {.op = &amin_op, .init = "first", .float_combine = "NB_ISNAN(x) || NB_ISNAN(acc) ? (A)NB_NAN : (x < acc ? x : acc)",
     .int_combine = "x < acc ? x : acc"},
    {.op = &all_op, .init = "1", .float_combine = "acc && x != 0", .int_combine = "acc && x != 0"},
    {.op = &any_op, .init = "0", .float_combine = "acc || x != 0", .int_combine = "acc || x != 0"},
};

}  // namespace

std::span<const ElementwiseExpr> elementwise_exprs() { return kExprs; }
std::span<const ReduceExpr> reduce_exprs() { return kReductions; }

const ElementwiseExpr* find_elementwise_expr(const OpDef& op) {
  for (const ElementwiseExpr& e : kExprs)
    if (e.op == &op) return &e;
  return nullptr;
}

}  // namespace device_c
}  // namespace nabla

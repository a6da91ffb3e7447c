// Comparisons, logical ops, predicates, where and cast.
#include <cmath>

#include "nabla/core/user_op.h"
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/ops.h"

namespace nabla {
namespace {

constexpr OpDef compare_op(std::string_view name) {
  return OpDef{.name = name, .num_inputs = 2, .infer = detail::infer_binary_bool,
               .flags = kElementwise | kNonDifferentiable | kNativeReducedFloat,  // kernels/cpu/elementwise.h
               .promote = Promote::Common};
}
constexpr OpDef predicate_op(std::string_view name) {
  return OpDef{.name = name, .infer = detail::infer_unary_bool,
               .flags = kElementwise | kNonDifferentiable};
}

OutputMetas infer_where(const OpDef& op, Inputs in, const Attrs&) {
  NABLA_CHECK(in[0].dtype() == kBool, op.name, ": condition must be a bool tensor, got ", in[0].dtype());
  Shape s = broadcast_shapes(broadcast_shapes(in[0].sizes(), in[1].sizes(), op.name), in[2].sizes(), op.name);
  return {{s, in[1].dtype()}};
}
OutputMetas infer_cast(const OpDef&, Inputs in, const Attrs& a) { return {{in[0].sizes(), a.dtype(0)}}; }

}  // namespace

extern constinit const OpDef eq_op = compare_op("eq");
extern constinit const OpDef ne_op = compare_op("ne");
extern constinit const OpDef lt_op = compare_op("lt");
extern constinit const OpDef le_op = compare_op("le");
extern constinit const OpDef gt_op = compare_op("gt");
extern constinit const OpDef ge_op = compare_op("ge");
extern constinit const OpDef logical_and_op = compare_op("logical_and");
extern constinit const OpDef logical_or_op = compare_op("logical_or");
extern constinit const OpDef logical_xor_op = compare_op("logical_xor");
extern constinit const OpDef logical_not_op = predicate_op("logical_not");
extern constinit const OpDef isnan_op = predicate_op("isnan");
extern constinit const OpDef isinf_op = predicate_op("isinf");
extern constinit const OpDef isfinite_op = predicate_op("isfinite");
extern constinit const OpDef where_op{.name = "where",
                     .num_inputs = 3,
                     .infer = infer_where,
                     .grad = [](GradCtx& c) -> TensorList {
                       Tensor cond = c.input(0);
                       Tensor z = zeros_like(c.grad());
                       return {Tensor(), where(cond, c.grad(), z), where(cond, z, c.grad())};
                     },
                     .flags = kElementwise | kNativeReducedFloat,  // a copy of either operand
                     .promote = Promote::Common,
                     .promote_from = 1,
                     .save_inputs = 1};
extern constinit const OpDef cast_op{.name = "cast",
                    .attr_names = "dtype",
                    .infer = infer_cast,
                    .grad = [](GradCtx& c) -> TensorList { return {c.grad().to(c.input_dtype(0))}; },
                    .flags = kElementwise | kNativeReducedFloat,
                    .save_inputs = 0};

namespace {
detail::RegisterOps register_compare{&eq_op, &ne_op, &lt_op, &le_op, &gt_op, &ge_op, &logical_and_op,
                                     &logical_or_op, &logical_xor_op, &logical_not_op, &isnan_op, &isinf_op,
                                     &isfinite_op, &where_op, &cast_op};
}

Tensor eq(const Tensor& a, const Tensor& b) { return call1(eq_op, {a, b}); }
Tensor ne(const Tensor& a, const Tensor& b) { return call1(ne_op, {a, b}); }
Tensor lt(const Tensor& a, const Tensor& b) { return call1(lt_op, {a, b}); }
Tensor le(const Tensor& a, const Tensor& b) { return call1(le_op, {a, b}); }
Tensor gt(const Tensor& a, const Tensor& b) { return call1(gt_op, {a, b}); }
Tensor ge(const Tensor& a, const Tensor& b) { return call1(ge_op, {a, b}); }
Tensor logical_and(const Tensor& a, const Tensor& b) { return call1(logical_and_op, {a, b}); }
Tensor logical_or(const Tensor& a, const Tensor& b) { return call1(logical_or_op, {a, b}); }
Tensor logical_xor(const Tensor& a, const Tensor& b) { return call1(logical_xor_op, {a, b}); }
Tensor logical_not(const Tensor& x) { return call1(logical_not_op, {x}); }
Tensor isnan(const Tensor& x) { return call1(isnan_op, {x}); }
Tensor isinf(const Tensor& x) { return call1(isinf_op, {x}); }
Tensor isfinite(const Tensor& x) { return call1(isfinite_op, {x}); }
Tensor where(const Tensor& c, const Tensor& a, const Tensor& b) { return call1(where_op, {c, a, b}); }

// A number on either side (NABLA_SCALAR_FORMS: ops/elementwise_common.h).
NABLA_SCALAR_FORMS(eq)
NABLA_SCALAR_FORMS(ne)
NABLA_SCALAR_FORMS(lt)
NABLA_SCALAR_FORMS(le)
NABLA_SCALAR_FORMS(gt)
NABLA_SCALAR_FORMS(ge)
NABLA_SCALAR_FORMS(logical_and)
NABLA_SCALAR_FORMS(logical_or)
NABLA_SCALAR_FORMS(logical_xor)

Tensor where(const Tensor& c, const Tensor& a, const Scalar& b) try {
  return where(c, a, scalar_tensor_like(b, a));
} catch (const Error&) {
  detail::rethrow_naming("where");
}
Tensor where(const Tensor& c, const Scalar& a, const Tensor& b) try {
  return where(c, scalar_tensor_like(a, b), b);
} catch (const Error&) {
  detail::rethrow_naming("where");
}
Tensor where(const Tensor& c, const Scalar& a, const Scalar& b) try {
  // Two Python numbers: their own result type, with float32 for a floating
  // one (PyTorch's default dtype), on the condition's device.
  DType t = promote_types(a.kind(), b.kind());
  if (t == kFloat64) t = kFloat32;
  NABLA_CHECK(c.defined(), "where: the condition is an undefined tensor");
  Tensor va = full({}, a, TensorOptions(t).device(c.device()));
  return where(c, va, scalar_tensor_like(b, va));
} catch (const Error&) {
  detail::rethrow_naming("where");
}

Tensor cast(const Tensor& x, DType t) {
  if (x.defined() && x.dtype() == t) return x;
  return call1(cast_op, {x}, {t});  // an undefined input: the op's check names it
}

Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor operator==(const Tensor& a, const Scalar& b) { return eq(a, scalar_tensor_like(b, a)); }
Tensor operator!=(const Tensor& a, const Scalar& b) { return ne(a, scalar_tensor_like(b, a)); }
Tensor operator<(const Tensor& a, const Scalar& b) { return lt(a, scalar_tensor_like(b, a)); }
Tensor operator<=(const Tensor& a, const Scalar& b) { return le(a, scalar_tensor_like(b, a)); }
Tensor operator>(const Tensor& a, const Scalar& b) { return gt(a, scalar_tensor_like(b, a)); }
Tensor operator>=(const Tensor& a, const Scalar& b) { return ge(a, scalar_tensor_like(b, a)); }
Tensor operator==(const Scalar& a, const Tensor& b) { return eq(a, b); }
Tensor operator!=(const Scalar& a, const Tensor& b) { return ne(a, b); }
Tensor operator<(const Scalar& a, const Tensor& b) { return lt(a, b); }
Tensor operator<=(const Scalar& a, const Tensor& b) { return le(a, b); }
Tensor operator>(const Scalar& a, const Tensor& b) { return gt(a, b); }
Tensor operator>=(const Scalar& a, const Tensor& b) { return ge(a, b); }
Tensor operator&&(const Tensor& a, const Tensor& b) { return logical_and(a, b); }
Tensor operator||(const Tensor& a, const Tensor& b) { return logical_or(a, b); }
Tensor operator!(const Tensor& x) { return logical_not(x); }

}  // namespace nabla

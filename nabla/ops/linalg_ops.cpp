// Matrix products: mm and bmm are table entries with BLAS kernels; matmul,
// addmm, linear, outer and dot are composites of them, whose errors name
// themselves (Note [User-facing op names]).
#include "nabla/core/user_op.h"
#include "nabla/ops/autocast.h"
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/ops.h"

namespace nabla {
namespace {

OutputMetas infer_mm(const OpDef& op, Inputs in, const Attrs&) {
  const Tensor &a = in[0], &b = in[1];
  NABLA_CHECK(a.dim() == 2 && b.dim() == 2, op.name, ": expected 2-D matrices, got shapes ", a.sizes(), " and ",
              b.sizes());
  NABLA_CHECK(a.sizes()[1] == b.sizes()[0], op.name, ": shapes ", a.sizes(), " and ", b.sizes(),
              " cannot be multiplied (", a.sizes()[1], " != ", b.sizes()[0], ")");
  return {{Shape{a.sizes()[0], b.sizes()[1]}, a.dtype()}};
}
OutputMetas infer_bmm(const OpDef& op, Inputs in, const Attrs&) {
  const Tensor &a = in[0], &b = in[1];
  NABLA_CHECK(a.dim() == 3 && b.dim() == 3, op.name, ": expected 3-D batches of matrices, got shapes ", a.sizes(),
              " and ", b.sizes());
  NABLA_CHECK(a.sizes()[0] == b.sizes()[0] && a.sizes()[2] == b.sizes()[1], op.name, ": shapes ", a.sizes(),
              " and ", b.sizes(), " cannot be batch-multiplied (expected [B,n,k] and [B,k,m])");
  return {{Shape{a.sizes()[0], a.sizes()[1], b.sizes()[2]}, a.dtype()}};
}

// PyTorch's mm_mat1/mat2_backward: an operand stored column-major (a
// transposed view, as Linear uses its weight) gets a column-major gradient,
// computed as the transpose of the transposed product, so that the leaf's
// .grad is its own layout without a transposing copy (1.6 MB per step for the
// CNN's first Linear). Graphs get the same from the transpose_matmul pass.
bool column_major(const Tensor& t) {
  if (t.is_symbolic()) return false;
  const Shape &s = t.sizes(), &st = t.strides();
  return st[0] == 1 && (s[1] == 1 || st[1] >= std::max<int64_t>(1, s[0])) && s[0] > 1;
}
TensorList mm_grad(GradCtx& c) {
  Tensor a = c.input(0), b = c.input(1);
  const Tensor& g = c.grad();
  Tensor ga, gb;
  if (c.needs_grad(0)) ga = column_major(a) ? mm(b, g.t()).t() : mm(g, b.t());
  if (c.needs_grad(1)) gb = column_major(b) ? mm(g.t(), a).t() : mm(a.t(), g);
  return {ga, gb};
}

}  // namespace

extern constinit const OpDef mm_op{.name = "mm", .num_inputs = 2, .infer = infer_mm, .grad = mm_grad,
                  .flags = kNativeReducedFloat,  // bfloat16 on oneDNN (kernels/cpu/linalg_ops.cpp)
                  .promote = Promote::Common};
extern constinit const OpDef bmm_op{.name = "bmm", .num_inputs = 2, .infer = infer_bmm,
                   .grad = [](GradCtx& c) -> TensorList {
                     return {c.needs_grad(0) ? bmm(c.grad(), c.input(1).transpose(1, 2)) : Tensor(),
                             c.needs_grad(1) ? bmm(c.input(0).transpose(1, 2), c.grad()) : Tensor()};
                   },
                   .flags = kNativeReducedFloat,
                   .promote = Promote::Common};

namespace {
detail::RegisterOps register_linalg{&mm_op, &bmm_op};
}

Tensor mm(const Tensor& a, const Tensor& b) { return call1(mm_op, {a, b}); }
Tensor bmm(const Tensor& a, const Tensor& b) { return call1(bmm_op, {a, b}); }

Tensor matmul(const Tensor& a, const Tensor& b) try {
  NABLA_CHECK(a.dim() >= 1 && b.dim() >= 1, "matmul: both arguments need at least 1 dim, got shapes ", a.sizes(),
              " and ", b.sizes());
  if (a.dim() == 1 && b.dim() == 1) return dot(a, b);
  if (a.dim() == 2 && b.dim() == 1) return squeeze(mm(a, unsqueeze(b, 1)), -1);
  if (a.dim() == 1 && b.dim() == 2) return squeeze(mm(unsqueeze(a, 0), b), 0);
  if (a.dim() == 2 && b.dim() == 2) return mm(a, b);
  // Batched: promote vectors to matrices, broadcast batch dims, fold them into one.
  Tensor A = a.dim() == 1 ? unsqueeze(a, 0) : a;
  Tensor B = b.dim() == 1 ? unsqueeze(b, 1) : b;
  int64_t n = A.sizes()[A.dim() - 2], k = A.sizes()[A.dim() - 1];
  int64_t k2 = B.sizes()[B.dim() - 2], m = B.sizes()[B.dim() - 1];
  NABLA_CHECK(k == k2, "matmul: shapes ", a.sizes(), " and ", b.sizes(), " cannot be multiplied (", k, " != ", k2, ")");
  Shape batch_a(A.sizes().begin(), A.sizes().end() - 2), batch_b(B.sizes().begin(), B.sizes().end() - 2);
  Shape batch = broadcast_shapes(batch_a, batch_b, "matmul");
  int64_t nb = 1;
  for (int64_t d : batch) nb *= d;
  Shape sa = batch, sb = batch;
  sa.push_back(n); sa.push_back(k);
  sb.push_back(k); sb.push_back(m);
  Tensor out;
  if (b.dim() == 2 && batch_a == batch) {
    // [..., n, k] @ [k, m]: fold the batch into rows, one GEMM.
    out = reshape(mm(reshape(A, {-1, k}), B), [&] { Shape s = batch; s.push_back(n); s.push_back(m); return s; }());
  } else {
    out = bmm(reshape(expand(A, sa), {nb, n, k}), reshape(expand(B, sb), {nb, k, m}));
    Shape so = batch;
    so.push_back(n);
    so.push_back(m);
    out = reshape(out, so);
  }
  if (a.dim() == 1) out = squeeze(out, -2);
  if (b.dim() == 1) out = squeeze(out, -1);
  return out;
} catch (const Error&) {
  detail::rethrow_naming("matmul");
}

Tensor addmm(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& beta, const Scalar& alpha) try {
  Tensor p = mm(a, b);
  if (alpha.to_double() != 1.0) p = p * alpha;
  if (beta.to_double() == 0.0) return p;
  // Under autocast the sum stays in the lower dtype, as PyTorch's addmm.
  Tensor cc = detail::autocast_lower(c);
  return (beta.to_double() == 1.0 ? cc : cc * beta) + p;
} catch (const Error&) {
  detail::rethrow_naming("addmm");
}

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) try {
  NABLA_CHECK(weight.dim() == 2, "linear: weight must be 2-D [out_features, in_features], got shape ", weight.sizes());
  NABLA_CHECK(x.dim() >= 1 && x.size(-1) == weight.sizes()[1], "linear: input of shape ", x.sizes(),
              " does not match weight of shape ", weight.sizes(), " (expected last dim ", weight.sizes()[1], ")");
  // Under autocast the weight is cast before it is transposed, as PyTorch's
  // linear does: a contiguous cast, and its gradient comes back through a
  // transposed product rather than a transposed cast and copy.
  Tensor y = matmul(x, detail::autocast_lower(weight).t());
  if (!bias.defined()) return y;
  NABLA_CHECK(is_expandable_to(bias.sizes(), y.sizes()), "linear: bias of shape ", bias.sizes(),
              " does not match the output of shape ", y.sizes(), " (expected [", weight.sizes()[0],
              "], one value per out_feature)");
  return y + detail::autocast_lower(bias);  // under autocast the sum stays bfloat16, as PyTorch's linear
} catch (const Error&) {
  detail::rethrow_naming("linear");
}

Tensor outer(const Tensor& a, const Tensor& b) try {
  NABLA_CHECK(a.dim() == 1 && b.dim() == 1, "outer: expected 1-D vectors, got shapes ", a.sizes(), " and ", b.sizes());
  return unsqueeze(a, 1) * unsqueeze(b, 0);
} catch (const Error&) {
  detail::rethrow_naming("outer");
}

Tensor dot(const Tensor& a, const Tensor& b) try {
  NABLA_CHECK(a.dim() == 1 && b.dim() == 1 && a.sizes()[0] == b.sizes()[0],
              "dot: expected two 1-D vectors of the same length, got shapes ", a.sizes(), " and ", b.sizes());
  return squeeze(mm(unsqueeze(a, 0), unsqueeze(b, 1)));
} catch (const Error&) {
  detail::rethrow_naming("dot");
}

}  // namespace nabla

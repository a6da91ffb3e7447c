// Rearranging ops: flip and tril/triu (kernels; each is its own gradient,
// up to the same attributes) and roll (a composite of narrow + cat, so its
// gradient is a roll the other way). Kernels: nabla/kernels/cpu/rearrange.cpp.
#include <algorithm>

#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/ops.h"

namespace nabla {
namespace {

// ---- flip: attrs dims (wrapped, sorted, distinct) -----------------------------
OutputMetas infer_flip(const OpDef&, Inputs in, const Attrs&) { return {{in[0].sizes(), in[0].dtype()}}; }

// ---- tril, triu: attrs diagonal -------------------------------------------------
OutputMetas infer_triangle(const OpDef& op, Inputs in, const Attrs&) {
  NABLA_CHECK(in[0].dim() >= 2, op.name, ": expected a tensor with at least 2 dims, got shape ", in[0].sizes());
  return {{in[0].sizes(), in[0].dtype()}};
}

// ---- roll: attrs shifts, dims (both as given) ---------------------------------------
TensorList roll_composite(Inputs in, const Attrs& a) {
  const Tensor& x = in[0];
  const Shape &shifts = a.ints(0), &dims = a.ints(1);
  if (dims.empty()) {
    NABLA_CHECK(shifts.size() == 1, "roll: without dims, expected exactly one shift (for the flattened tensor), got ",
                shifts);
    return {reshape(roll(reshape(x, {-1}), shifts, {0}), x.sizes())};
  }
  NABLA_CHECK(shifts.size() == dims.size(), "roll: got ", shifts.size(), " shifts ", shifts, " for ", dims.size(),
              " dims ", dims, " (expected one shift per dim)");
  Tensor r = x;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    int64_t d = wrap_dim(dims[i], x.dim(), "roll");
    int64_t n = x.dim() ? x.sizes()[d] : 1;
    if (n == 0 || x.dim() == 0) continue;
    int64_t s = ((shifts[i] % n) + n) % n;  // shifts may be negative or exceed the size
    if (s == 0) continue;
    // The last s elements move to the front.
    r = cat({narrow(r, d, n - s, s), narrow(r, d, 0, n - s)}, d);
  }
  return {r.is_same(x) ? clone(x) : r};  // always a new tensor, like PyTorch
}

}  // namespace

extern const OpDef flip_op, tril_op, triu_op, roll_op;

extern constinit const OpDef flip_op{.name = "flip", .attr_names = "dims", .infer = infer_flip,
                                     .grad = [](GradCtx& c) -> TensorList {
                                       return {flip(c.grad(), c.attrs().ints(0))};
                                     },
                                     .flags = kNativeReducedFloat, .save_inputs = 0};
extern constinit const OpDef tril_op{.name = "tril", .attr_names = "diagonal", .infer = infer_triangle,
                                     .grad = [](GradCtx& c) -> TensorList { return {tril(c.grad(), c.attrs().i(0))}; },
                                     .flags = kNativeReducedFloat, .save_inputs = 0};
extern constinit const OpDef triu_op{.name = "triu", .attr_names = "diagonal", .infer = infer_triangle,
                                     .grad = [](GradCtx& c) -> TensorList { return {triu(c.grad(), c.attrs().i(0))}; },
                                     .flags = kNativeReducedFloat, .save_inputs = 0};
extern constinit const OpDef roll_op{.name = "roll", .attr_names = "shifts,dims", .composite = roll_composite};

namespace {
detail::RegisterOps register_rearrange{&flip_op, &tril_op, &triu_op, &roll_op};
}

Tensor flip(const Tensor& x, IntList dims) {
  NABLA_CHECK(x.defined(), "flip: input 0 is an undefined tensor");
  Shape d;
  for (int64_t v : dims) {
    int64_t w = wrap_dim(v, x.dim(), "flip");
    NABLA_CHECK(std::find(d.begin(), d.end(), w) == d.end(), "flip: dim ", w, " appears more than once in ", dims);
    d.push_back(w);
  }
  if (x.dim() == 0) d.clear();  // nothing to reverse
  std::sort(d.begin(), d.end());
  return call1(flip_op, {x}, {d});
}
Tensor roll(const Tensor& x, IntList shifts, IntList dims) {
  return call1(roll_op, {x}, {shifts.shape(), dims.shape()});
}
Tensor tril(const Tensor& x, int64_t diagonal) { return call1(tril_op, {x}, {diagonal}); }
Tensor triu(const Tensor& x, int64_t diagonal) { return call1(triu_op, {x}, {diagonal}); }

}  // namespace nabla

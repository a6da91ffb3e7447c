// Sorting: sort and topk (kernels returning values and int64 indices; only
// the values are differentiable: their gradient is scattered back to where
// each value came from), and argsort (a composite). Kernels:
// nabla/kernels/cpu/sort.cpp.
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/ops.h"

namespace nabla {
namespace {

// The values' gradient, put back at the positions the indices name.
TensorList scatter_back(GradCtx& c, int64_t dim) {
  const Tensor& g = c.grad(0);
  Tensor z = zeros(c.input_sizes(0), TensorOptions(g.dtype()).device(g.device()));
  return {scatter_add(z, dim, c.output(1), g)};
}

// ---- sort: attrs dim (wrapped), descending, stable ---------------------------
OutputMetas infer_sort(const OpDef&, Inputs in, const Attrs&) {
  return {{in[0].sizes(), in[0].dtype()}, {in[0].sizes(), kInt64}};
}

// ---- topk: attrs k, dim (wrapped), largest, sorted ---------------------------------
OutputMetas infer_topk(const OpDef& op, Inputs in, const Attrs& a) {
  int64_t k = a.i(0), dim = a.i(1);
  int64_t n = in[0].dim() ? in[0].sizes()[dim] : 1;
  NABLA_CHECK(k >= 0 && k <= n, op.name, ": k (", k, ") is out of range for dim ", dim, " of size ", n, " (shape ",
              in[0].sizes(), "; expected 0 <= k <= ", n, ")");
  Shape s = in[0].sizes();
  if (s.empty()) {
    if (k == 0) s.push_back(0);
  } else {
    s[dim] = k;
  }
  return {{s, in[0].dtype()}, {s, kInt64}};
}

// ---- argsort (composite): attrs dim, descending, stable ---------------------------
TensorList argsort_composite(Inputs in, const Attrs& a) {
  return {sort(in[0], a.i(0), a.b(1), a.b(2)).second};
}

}  // namespace

extern constinit const OpDef sort_op{.name = "sort", .attr_names = "dim,descending,stable", .infer = infer_sort,
                                     .grad = [](GradCtx& c) { return scatter_back(c, c.attrs().i(0)); },
                                     .flags = kSaveOutputs, .save_inputs = 0, .num_differentiable_outputs = 1};
extern constinit const OpDef topk_op{.name = "topk", .attr_names = "k,dim,largest,sorted", .infer = infer_topk,
                                     .grad = [](GradCtx& c) { return scatter_back(c, c.attrs().i(1)); },
                                     .flags = kSaveOutputs, .save_inputs = 0, .num_differentiable_outputs = 1};
extern constinit const OpDef argsort_op{.name = "argsort", .attr_names = "dim,descending,stable",
                                        .composite = argsort_composite};

namespace {
detail::RegisterOps register_sort{&sort_op, &topk_op, &argsort_op};
}

std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t dim, bool descending, bool stable) {
  NABLA_CHECK(x.defined(), "sort: input 0 is an undefined tensor");
  auto r = call(sort_op, Inputs(&x, 1), {wrap_dim(dim, x.dim(), "sort"), descending, stable});
  return {r[0], r[1]};
}
Tensor argsort(const Tensor& x, int64_t dim, bool descending, bool stable) {
  return call1(argsort_op, {x}, {dim, descending, stable});
}
std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted) {
  NABLA_CHECK(x.defined(), "topk: input 0 is an undefined tensor");
  auto r = call(topk_op, Inputs(&x, 1), {k, wrap_dim(dim, x.dim(), "topk"), largest, sorted});
  return {r[0], r[1]};
}

}  // namespace nabla

// Stand-in shape inference and deferred gradients for graphs with unknown
// dims (unknown_dims.h).
#include "nabla/graph/unknown_dims.h"

#include <algorithm>

#include "nabla/graph/gradients.h"
#include "nabla/graph/graph.h"
#include "nabla/graph/specialize.h"

namespace nabla::graph::detail {

namespace {

// Two sizes no real dim is likely to be checked against, different enough
// that a dim computed from them shows it.
constexpr int64_t kStandIns[2] = {1009, 1013};

Shape with_stand_in(Shape s, int64_t size) {
  int64_t numel = 1;
  for (int64_t& d : s) {
    if (d < 0) d = size;
    NABLA_CHECK(!__builtin_mul_overflow(numel, std::max<int64_t>(d, 1), &numel), "graph: a value of shape ", s,
                " (its unknown dims taken as ", size, ") has more elements than int64 can count");
  }
  return s;
}

OutputMetas call_on_stand_ins(const OpDef& op, Inputs inputs, const Attrs& attrs, int64_t size) {
  Graph scratch;
  std::vector<Tensor> ins;
  for (const Tensor& t : inputs)
    ins.push_back(t.is_symbolic() ? scratch.placeholder(t.dtype(), with_stand_in(t.sizes(), size), "stand_in") : t);
  TensorList out;
  try {
    out = call(op, Inputs(ins.data(), ins.size()), attrs);
  } catch (const Error& e) {
    fail(op.name, ": its inputs have unknown dims (-1), which were checked by taking them as ", size, ": ", e.what());
  }
  OutputMetas metas;
  for (const Tensor& t : out) {
    NABLA_CHECK(t.defined(), op.name, ": on values with unknown dims (-1) it gives an undefined result");
    metas.push_back({t.sizes(), t.dtype()});
  }
  return metas;
}

}  // namespace

OutputMetas infer_with_stand_ins(const OpDef& op, Inputs inputs, const Attrs& attrs) {
  OutputMetas a = call_on_stand_ins(op, inputs, attrs, kStandIns[0]);
  OutputMetas b = call_on_stand_ins(op, inputs, attrs, kStandIns[1]);
  NABLA_CHECK(a.size() == b.size(), op.name, ": its number of results depends on the unknown dims (-1) of its inputs");
  for (std::size_t i = 0; i < a.size(); ++i) {
    NABLA_CHECK(a[i].dtype == b[i].dtype && a[i].sizes.size() == b[i].sizes.size(), op.name,
                ": the rank of its result depends on the unknown dims (-1) of its inputs, which a graph cannot "
                "represent; give the placeholder's full shape");
    for (std::size_t d = 0; d < a[i].sizes.size(); ++d)
      if (a[i].sizes[d] != b[i].sizes[d]) a[i].sizes[d] = -1;
  }
  return a;
}

std::vector<Tensor> deferred_gradients(const std::shared_ptr<GraphData>& g, const std::vector<Tensor>& ys,
                                       const std::vector<Tensor>& xs, const std::vector<Tensor>& grad_ys,
                                       std::source_location loc) {
  if (xs.empty()) return {};
  // Differentiate a stand-in replay now: its errors are the user's to see at
  // build time, and it tells which xs get a gradient.
  Replay probe = replay(*g, [&](int id) -> std::optional<Shape> {
    const Node& n = g->nodes[static_cast<std::size_t>(id)];
    return with_stand_in(n.metas[0].sizes, kStandIns[0]);
  });
  auto in_probe = [&](const Tensor& t) -> Tensor {
    Value* v = value_of(t);
    if (!v) return t;  // a concrete grad_y
    return probe.values[static_cast<std::size_t>(v->ref.node)][static_cast<std::size_t>(v->ref.output)];
  };
  std::vector<Tensor> pys, pxs, pgrad_ys;
  for (const Tensor& y : ys) pys.push_back(in_probe(y));
  for (const Tensor& x : xs) pxs.push_back(in_probe(x));
  for (const Tensor& gy : grad_ys) pgrad_ys.push_back(gy.defined() ? in_probe(gy) : gy);
  std::vector<Tensor> probe_grads = gradients(pys, pxs, pgrad_ys, loc);

  Node n;
  n.kind = NodeKind::Gradients;
  n.loc = loc;
  n.num_ys = static_cast<int>(ys.size());
  for (const Tensor& y : ys) n.inputs.push_back(value_of(y)->ref);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    n.inputs.push_back(value_of(xs[i])->ref);
    const Tensor& pg = probe_grads[i];
    n.metas.push_back({xs[i].sizes(), pg.defined() ? pg.dtype() : xs[i].dtype()});
  }
  for (std::size_t k = 0; k < grad_ys.size(); ++k) {
    if (!grad_ys[k].defined()) continue;
    Tensor gy = grad_ys[k].is_symbolic() ? grad_ys[k] : Graph(g).constant(grad_ys[k], "grad_y", loc);
    n.inputs.push_back(value_of(gy)->ref);
    n.grad_ys_of.push_back(static_cast<int>(k));
  }
  TensorList out = add_node(g, std::move(n), "gradients");
  std::vector<Tensor> grads;
  for (std::size_t i = 0; i < xs.size(); ++i) grads.push_back(probe_grads[i].defined() ? out[i] : Tensor());
  return grads;
}

}  // namespace nabla::graph::detail

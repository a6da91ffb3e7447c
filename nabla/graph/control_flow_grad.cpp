// Gradients of Cond and While nodes, called by graph::gradients.
//
// Cond: the gradient is another Cond on the same pred whose branches are
// copies of the forward branches extended with gradients() of their results
// (seeded by placeholders bound to the incoming gradients) w.r.t. their
// captures. Only the branch taken runs, so gradient nodes of a branch run only
// when it ran; a capture a branch does not use gets zeros from it.
//
// While: a WhileGrad node whose third subgraph is a copy of the body extended
// with gradients() of the new loop variables w.r.t. the old ones and the
// captures (seeded by the gradients of the new ones). At run time it replays
// the loop to record the loop variables, then runs that subgraph backwards
// over them, summing the captures' gradients over iterations
// (control_flow_run.cpp). A WhileGrad cannot be differentiated again.
#include "nabla/core/grad_mode.h"
#include "nabla/graph/control_flow_detail.h"
#include "nabla/graph/gradients.h"
#include "nabla/ops/ops.h"

namespace nabla::graph::detail {

namespace {

std::shared_ptr<GraphData> copy_for_gradient(const Subgraph& s, const std::shared_ptr<GraphData>& parent) {
  auto c = std::make_shared<GraphData>(*s.graph);
  c->parent = parent;
  c->captures.clear();
  c->capture_params.clear();
  c->open_subgraphs.clear();
  return c;
}

ValueRef add_to(const std::shared_ptr<GraphData>& g, NodeKind kind, const OutputMeta& meta, const char* base,
                const std::source_location& loc) {
  Node n;
  n.kind = kind;
  n.metas.push_back(meta);
  n.loc = loc;
  if (kind == NodeKind::Constant) n.value = zeros(meta.sizes, TensorOptions().dtype(meta.dtype));
  const int id = static_cast<int>(g->nodes.size());
  add_node(g, std::move(n), base);
  return {id, 0};
}

const OutputMeta& meta_of(const GraphData& g, ValueRef r) {
  return g.nodes[static_cast<std::size_t>(r.node)].metas[static_cast<std::size_t>(r.output)];
}

// Extends a copy of `s` (a subgraph of `g`) with the gradients of its results
// `ys` (seeded by new placeholders, returned in seed_ids) w.r.t. its params at
// `x_params` (indices into s.params; -1 there gives zeros). Its results
// become those gradients.
Subgraph gradient_subgraph(const std::shared_ptr<GraphData>& g, const Subgraph& s, const std::vector<int>& ys,
                           const std::vector<int>& x_params, const std::vector<OutputMeta>& x_metas,
                           const std::source_location& loc, std::vector<int>& seed_ids) {
  std::shared_ptr<GraphData> c = copy_for_gradient(s, g);
  OpenSubgraph open(c);
  std::vector<Tensor> y_tensors, seeds, xs;
  seed_ids.clear();
  for (int y : ys) {
    const ValueRef r = s.results[static_cast<std::size_t>(y)];
    y_tensors.push_back(value_tensor(c, r));
    const ValueRef seed = add_to(c, NodeKind::Placeholder, meta_of(*c, r), "grad_seed", loc);
    seed_ids.push_back(seed.node);
    seeds.push_back(value_tensor(c, seed));
  }
  std::vector<int> x_of;  // per wanted x: index into xs, or -1
  for (int p : x_params) {
    const int ph = s.params[static_cast<std::size_t>(p)];
    x_of.push_back(ph < 0 ? -1 : static_cast<int>(xs.size()));
    if (ph >= 0) xs.push_back(value_tensor(c, {ph, 0}));
  }
  std::vector<Tensor> grads = xs.empty() ? std::vector<Tensor>{} : gradients(y_tensors, xs, seeds, loc);
  Subgraph out;
  out.graph = c;
  out.params = s.params;
  for (std::size_t k = 0; k < x_params.size(); ++k) {
    const int at = x_of[k];
    if (at >= 0 && grads[static_cast<std::size_t>(at)].defined())
      out.results.push_back(value_of(grads[static_cast<std::size_t>(at)])->ref);
    else
      out.results.push_back(add_to(c, NodeKind::Constant, x_metas[k], "zeros", loc));
  }
  NABLA_CHECK(c->captures.empty(), "gradients: internal error: the gradient of ", s.graph->region,
              " captured outer values");
  return out;
}

// The incoming gradient of each floating output (zeros where none came).
std::vector<ValueRef> seeds_for(const std::shared_ptr<GraphData>& g, const Node& node, const TensorList& out_grads,
                                const std::vector<int>& outs) {
  std::vector<ValueRef> seeds;
  for (int i : outs) {
    const Tensor& gr = static_cast<std::size_t>(i) < out_grads.size() ? out_grads[static_cast<std::size_t>(i)] : Tensor();
    if (Value* v = value_of(gr))
      seeds.push_back(v->ref);
    else
      seeds.push_back(add_to(g, NodeKind::Constant, node.metas[static_cast<std::size_t>(i)], "zeros", node.loc));
  }
  return seeds;
}

}  // namespace

TensorList control_flow_gradient(const std::shared_ptr<GraphData>& g, int id, const TensorList& out_grads,
                                 const std::vector<char>& needs) {
  NoGradGuard no_grad;
  const Node node = g->nodes[static_cast<std::size_t>(id)];  // a copy: nodes are added below
  NABLA_CHECK(node.kind != NodeKind::WhileGrad, "gradients: node ", describe(node),
              " is the gradient of a while_loop; gradients through it (second derivatives of a while_loop) are not "
              "supported");
  TensorList in_grads(node.inputs.size());
  const bool is_cond = node.kind == NodeKind::Cond;
  const std::size_t n_vars = is_cond ? 0 : node.metas.size();
  const std::size_t first_cap = is_cond ? 1 : n_vars;  // captures follow pred / the loop variables

  std::vector<int> float_outs;
  for (std::size_t i = 0; i < node.metas.size(); ++i)
    if (is_floating(node.metas[i].dtype)) float_outs.push_back(static_cast<int>(i));
  std::vector<int> wanted;  // inputs (captures) whose gradient is built
  for (std::size_t j = first_cap; j < node.inputs.size(); ++j)
    if (needs[j]) wanted.push_back(static_cast<int>(j));
  if (float_outs.empty() || (is_cond && wanted.empty())) return in_grads;
  const std::vector<ValueRef> seeds = seeds_for(g, node, out_grads, float_outs);

  // Gradients are taken w.r.t. these params: the floating loop variables (a
  // loop carries their gradient backwards), then the wanted captures.
  std::vector<int> x_params;
  std::vector<OutputMeta> x_metas;
  if (!is_cond)
    for (int i : float_outs) {
      x_params.push_back(i);
      x_metas.push_back(node.metas[static_cast<std::size_t>(i)]);
    }
  for (int j : wanted) {
    x_params.push_back(j);
    x_metas.push_back(meta_of(*g, node.inputs[static_cast<std::size_t>(j)]));
  }

  Node grad;
  grad.loc = node.loc;
  grad.inputs = node.inputs;
  grad.inputs.insert(grad.inputs.end(), seeds.begin(), seeds.end());
  for (const OutputMeta& m : x_metas) grad.metas.push_back(m);
  std::vector<int> seed_ids;
  if (is_cond) {
    grad.kind = NodeKind::Cond;
    for (const Subgraph& branch : node.subgraphs) {
      Subgraph s = gradient_subgraph(g, branch, float_outs, x_params, x_metas, node.loc, seed_ids);
      s.params.insert(s.params.end(), seed_ids.begin(), seed_ids.end());
      grad.subgraphs.push_back(std::move(s));
    }
  } else {
    grad.kind = NodeKind::WhileGrad;
    Subgraph s = gradient_subgraph(g, node.subgraphs[1], float_outs, x_params, x_metas, node.loc, seed_ids);
    s.params.insert(s.params.end(), seed_ids.begin(), seed_ids.end());
    Shape fv, wc;
    for (int i : float_outs) fv.push_back(i);
    for (int j : wanted) wc.push_back(j);
    grad.attrs = Attrs{AttrValue(node.attrs.i(0)), AttrValue(static_cast<int64_t>(n_vars)), AttrValue(fv),
                       AttrValue(wc)};
    grad.subgraphs = {node.subgraphs[0], node.subgraphs[1], std::move(s)};
  }
  const int gid = static_cast<int>(g->nodes.size());
  add_node(g, std::move(grad), is_cond ? "cond_grad" : "while_grad");

  std::size_t k = 0;
  if (!is_cond)
    for (int i : float_outs) in_grads[static_cast<std::size_t>(i)] = value_tensor(g, {gid, static_cast<int>(k++)});
  for (int j : wanted) in_grads[static_cast<std::size_t>(j)] = value_tensor(g, {gid, static_cast<int>(k++)});
  return in_grads;
}

}  // namespace nabla::graph::detail

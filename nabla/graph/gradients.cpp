// graph::gradients: reverse-mode differentiation of a graph by adding nodes.
//
// Which nodes take part: a value *depends on xs* when it is an x or an output
// of an op node with such an input. Op nodes are visited in decreasing id
// (a reverse topological order, as in the eager engine's Note [Backward
// order]); a visited node with a gradient on some output runs its op's
// gradient rule through a GraphGradCtx whose tensors are symbolic, so the rule
// adds nodes. The results are conformed to each input exactly as the eager
// engine does (sum_to for broadcasting, cast to the input's floating dtype)
// and summed per value when a value has several consumers.
#include "nabla/graph/gradients.h"

#include <algorithm>
#include <set>
#include <utility>

#include "nabla/core/grad_mode.h"
#include "nabla/graph/control_flow_detail.h"
#include "nabla/graph/unknown_dims.h"
#include "nabla/ops/ops.h"

namespace nabla::graph {

namespace {

const Node& node_at(const GraphData& g, int id) { return g.nodes[static_cast<std::size_t>(id)]; }

// Nodes made while it lives are named "gradients/...", like TensorFlow's.
class GradientsScope {
 public:
  explicit GradientsScope(GraphData& g) : g_(g) { g_.scopes.push_back("gradients"); }
  ~GradientsScope() { g_.scopes.pop_back(); }
  GradientsScope(const GradientsScope&) = delete;
  GradientsScope& operator=(const GradientsScope&) = delete;

 private:
  GraphData& g_;
};

// Gradient nodes run where the forward node they differentiate runs
// (TensorFlow's colocate_gradients_with_ops): while it lives, new nodes take
// `device` (an unplaced forward node leaves the current DeviceScope as is).
class ColocateScope {
 public:
  ColocateScope(GraphData& g, const std::string& device) : g_(g), pushed_(!device.empty()) {
    if (pushed_) g_.device_scopes.push_back(device);
  }
  ~ColocateScope() {
    if (pushed_) g_.device_scopes.pop_back();
  }
  ColocateScope(const ColocateScope&) = delete;
  ColocateScope& operator=(const ColocateScope&) = delete;

 private:
  GraphData& g_;
  bool pushed_;
};

// The graph value behind argument `what`[i], checked to belong to `g` (set
// from the first value seen when null) and to have a value.
ValueRef checked_value(std::shared_ptr<GraphData>& g, const Tensor& t, const char* what, std::size_t i) {
  Value* v = value_of(t);
  NABLA_CHECK(v, "gradients: ", what, "[", i, "] is not a graph value (got a ",
              t.defined() ? "concrete" : "undefined", " tensor); pass values of the graph being differentiated");
  const Node& n = node_at(*v->graph, v->ref.node);
  NABLA_CHECK(!g || v->graph == g, "gradients: ", what, "[", i, "] ('", n.name,
              "') belongs to another graph than ys[0]; all ys, xs and grad_ys must come from one graph");
  g = v->graph;
  NABLA_CHECK(v->has_value, "gradients: ", what, "[", i, "] ('", n.name,
              "') has no value (a group or initializer); it cannot be differentiated");
  return v->ref;
}

// A concrete tensor as a Constant node of g (in the current scopes).
Tensor constant_node(const std::shared_ptr<GraphData>& g, const Tensor& value, const std::string& base) {
  Node c;
  c.kind = NodeKind::Constant;
  c.metas.push_back({value.sizes(), value.dtype()});
  c.value = value.detach();
  const std::source_location* where = detail::current_location();
  c.loc_known = where != nullptr;
  if (where) c.loc = *where;
  return detail::add_node(g, std::move(c), base)[0];
}

bool differentiable_output(const OpDef& op, std::size_t i, const OutputMeta& m) {
  if (!is_floating(m.dtype)) return false;
  return op.num_differentiable_outputs < 0 || i < static_cast<std::size_t>(op.num_differentiable_outputs);
}

// What a gradient rule sees for one op node. Everything about the node is
// copied at construction: the rule adds nodes, which may move g->nodes.
class GraphGradCtx final : public GradCtx {
 public:
  GraphGradCtx(const std::shared_ptr<GraphData>& g, int id, TensorList& grads, std::vector<char> needs)
      : g_(g), id_(id), grads_(grads), needs_(std::move(needs)) {
    const Node& n = node_at(*g, id);
    attrs_ = n.attrs;
    inputs_ = n.inputs;
    metas_ = n.metas;
    for (const ValueRef& r : inputs_) input_metas_.push_back(node_at(*g, r.node).metas[static_cast<std::size_t>(r.output)]);
  }
  const Tensor& grad(int i) override {
    Tensor& gr = grads_[static_cast<std::size_t>(i)];
    if (!gr.defined()) {
      const OutputMeta& m = metas_[static_cast<std::size_t>(i)];
      gr = constant_node(g_, zeros(m.sizes, TensorOptions().dtype(m.dtype)), "zeros");
    }
    return gr;
  }
  Tensor input(int i) override { return detail::value_tensor(g_, inputs_[static_cast<std::size_t>(i)]); }
  Tensor output(int i) override { return detail::value_tensor(g_, {id_, i}); }
  const Shape& input_sizes(int i) override { return input_metas_[static_cast<std::size_t>(i)].sizes; }
  DType input_dtype(int i) override { return input_metas_[static_cast<std::size_t>(i)].dtype; }
  bool needs_grad(int i) override { return needs_[static_cast<std::size_t>(i)] != 0; }
  int num_inputs() override { return static_cast<int>(inputs_.size()); }
  const Attrs& attrs() override { return attrs_; }

 private:
  std::shared_ptr<GraphData> g_;
  int id_;
  TensorList& grads_;
  std::vector<char> needs_;
  Attrs attrs_;
  std::vector<ValueRef> inputs_;
  OutputMetas metas_;
  std::vector<OutputMeta> input_metas_;
};

}  // namespace

std::vector<Tensor> gradients(const std::vector<Tensor>& ys, const std::vector<Tensor>& xs,
                              const std::vector<Tensor>& grad_ys, std::source_location loc) {
  NABLA_CHECK(!ys.empty(), "gradients: expected at least one y, got none");
  NABLA_CHECK(grad_ys.empty() || grad_ys.size() == ys.size(), "gradients: got ", ys.size(), " ys but ",
              grad_ys.size(), " grad_ys; pass one gradient per y (or none for ones)");
  std::shared_ptr<GraphData> g;
  std::vector<ValueRef> y_refs, x_refs;
  for (std::size_t i = 0; i < ys.size(); ++i) {
    y_refs.push_back(checked_value(g, ys[i], "ys", i));
    NABLA_CHECK(is_floating(ys[i].dtype()), "gradients: ys[", i, "] ('", node_at(*g, y_refs[i].node).name,
                "') has dtype ", ys[i].dtype(), "; only floating values can be differentiated");
  }
  for (std::size_t i = 0; i < xs.size(); ++i) x_refs.push_back(checked_value(g, xs[i], "xs", i));
  for (std::size_t i = 0; i < grad_ys.size(); ++i) {
    if (!grad_ys[i].defined()) continue;
    if (grad_ys[i].is_symbolic()) checked_value(g, grad_ys[i], "grad_ys", i);
    NABLA_CHECK(grad_ys[i].sizes() == ys[i].sizes() && grad_ys[i].dtype() == ys[i].dtype(), "gradients: grad_ys[", i,
                "] is ", grad_ys[i].dtype(), " of shape ", grad_ys[i].sizes(), " but ys[", i, "] ('",
                node_at(*g, y_refs[i].node).name, "') is ", ys[i].dtype(), " of shape ", ys[i].sizes(),
                "; expected the same shape and dtype");
  }

  // With unknown dims the rules cannot run yet: they read sizes.
  if (g->unknown_dims) return detail::deferred_gradients(g, ys, xs, grad_ys, loc);

  GradientsScope scope(*g);
  LocationScope at(loc);
  NoGradGuard no_grad;  // concrete helpers (zeros, ones) need no eager history
  const int n = static_cast<int>(g->nodes.size());  // the rules add nodes past n

  // Which values depend on xs: dep_node[id] for every output of an op node
  // with such an input; x_set for the xs themselves.
  std::set<std::pair<int, int>> x_set;
  for (const ValueRef& r : x_refs) x_set.insert({r.node, r.output});
  std::vector<char> dep_node(static_cast<std::size_t>(n), 0);
  auto depends = [&](const ValueRef& r) {
    return dep_node[static_cast<std::size_t>(r.node)] || x_set.count({r.node, r.output}) > 0;
  };
  for (int id = 0; id < n; ++id) {
    const Node& node = node_at(*g, id);
    if (node.kind != NodeKind::Op && !detail::is_control_flow(node.kind)) continue;
    for (const ValueRef& r : node.inputs) dep_node[static_cast<std::size_t>(id)] |= depends(r);
  }

  // Gradient sums per value, seeded with grad_ys.
  std::vector<TensorList> grads(static_cast<std::size_t>(n));
  auto accumulate = [&](const ValueRef& r, const Tensor& gr) {
    TensorList& slot = grads[static_cast<std::size_t>(r.node)];
    slot.resize(std::max(slot.size(), node_at(*g, r.node).metas.size()));
    Tensor& sum = slot[static_cast<std::size_t>(r.output)];
    sum = sum.defined() ? sum + gr : gr;
  };
  for (std::size_t i = 0; i < ys.size(); ++i) {
    Tensor gy = grad_ys.empty() ? Tensor() : grad_ys[i];
    if (!gy.defined()) gy = ones(ys[i].sizes(), TensorOptions().dtype(ys[i].dtype()));
    ColocateScope with_y(*g, node_at(*g, y_refs[i].node).device);
    if (!gy.is_symbolic()) gy = constant_node(g, gy, "grad_ys");
    accumulate(y_refs[i], gy);
  }

  for (int id = n - 1; id >= 0; --id) {
    if (!dep_node[static_cast<std::size_t>(id)]) continue;
    const Node& node = node_at(*g, id);
    // cond / while_loop nodes: gradients built by control_flow_grad.cpp.
    const bool flow = detail::is_control_flow(node.kind);
    const OpDef* op = node.op;
    if (!flow && op->has(kNonDifferentiable)) continue;
    TensorList out_grads = grads[static_cast<std::size_t>(id)];
    bool any = false;
    for (std::size_t i = 0; i < out_grads.size(); ++i) {
      if (flow ? !is_floating(node.metas[i].dtype) : !differentiable_output(*op, i, node.metas[i])) out_grads[i] = Tensor();  // indices: no gradient
      any |= out_grads[i].defined();
    }
    if (!any) continue;
    out_grads.resize(node.metas.size());
    std::vector<char> needs;
    bool any_needed = false;
    for (const ValueRef& r : node.inputs) {
      bool need = is_floating(node_at(*g, r.node).metas[static_cast<std::size_t>(r.output)].dtype) && depends(r);
      needs.push_back(need ? 1 : 0);
      any_needed |= need;
    }
    if (!any_needed) continue;
    NABLA_CHECK(flow || op->grad, "gradients: node ", describe(node), " (op '", op ? op->name : "",
                "') has no gradient rule, but a gradient flows through it");
    const std::string node_name = node.name;
    const std::vector<ValueRef> inputs = node.inputs;
    ColocateScope with_node(*g, node.device);
    TensorList in_grads;
    try {
      if (flow) {
        in_grads = detail::control_flow_gradient(g, id, out_grads, needs);
      } else {
        GraphGradCtx ctx(g, id, out_grads, needs);
        in_grads = op->grad(ctx);
      }
    } catch (const Error& e) {
      throw Error(::nabla::detail::concat(e.what(), "\n  while building the gradient of node '", node_name, "'"));
    }
    for (std::size_t i = 0; i < inputs.size() && i < in_grads.size(); ++i) {
      if (!needs[i] || !in_grads[i].defined()) continue;
      Tensor gr = in_grads[i];
      if (!gr.is_symbolic()) gr = constant_node(g, gr, "const");
      // Conform to the input, as the eager engine does (broadcast, dtype).
      // A copy: sum_to adds nodes, which may move g->nodes.
      const OutputMeta m = node_at(*g, inputs[i].node).metas[static_cast<std::size_t>(inputs[i].output)];
      if (gr.sizes() != m.sizes) {
        NABLA_CHECK(is_expandable_to(m.sizes, gr.sizes()), "gradients: the gradient rule of node '", node_name,
                    "' gave input ", i, " a gradient of shape ", gr.sizes(), ", which does not reduce to its shape ",
                    m.sizes);
        gr = sum_to(gr, m.sizes);
      }
      if (gr.dtype() != m.dtype) gr = gr.to(m.dtype);
      accumulate(inputs[i], gr);
    }
  }

  std::vector<Tensor> result;
  for (const ValueRef& r : x_refs) {
    const TensorList& slot = grads[static_cast<std::size_t>(r.node)];
    bool floating = is_floating(node_at(*g, r.node).metas[static_cast<std::size_t>(r.output)].dtype);
    if (!floating || static_cast<std::size_t>(r.output) >= slot.size()) {
      result.emplace_back();
      continue;
    }
    result.push_back(slot[static_cast<std::size_t>(r.output)]);
  }
  return result;
}

std::vector<Tensor> gradients(const Tensor& y, const std::vector<Tensor>& xs, std::source_location loc) {
  return gradients(std::vector<Tensor>{y}, xs, {}, loc);
}

}  // namespace nabla::graph

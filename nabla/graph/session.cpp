// Session::run: checks feeds, marks the nodes the fetches need, and runs them
// in node-id order, which is a topological order because a node's inputs
// always exist before it is made.
#include "nabla/graph/session.h"

#include "nabla/core/grad_mode.h"
#include "nabla/ops/shape.h"

namespace nabla::graph {

namespace {

const Node& node_at(const GraphData& g, int id) { return g.nodes[static_cast<std::size_t>(id)]; }

// The node id of a fetch or feed key, which must be a value of graph `g`.
ValueRef ref_in(const std::shared_ptr<GraphData>& g, const Tensor& t, const char* what, std::size_t i) {
  Value* v = value_of(t);
  NABLA_CHECK(v, "Session::run: ", what, " ", i, " is not a graph value (got a ",
              t.defined() ? "concrete" : "undefined", " tensor)");
  NABLA_CHECK(v->graph == g, "Session::run: ", what, " ", i, " ('", node_at(*v->graph, v->ref.node).name,
              "') belongs to another graph than this session's");
  return v->ref;
}

// Runs an op node eagerly. At build time every symbolic value is contiguous, so
// reshape() records a `view` node; at run time the input may be a strided
// view (an expand, a transpose), so a graph's `view` means reshape: a view
// when the strides allow it, else a copy. Graph values cannot observe aliasing.
TensorList run_op(const Node& node, Inputs ins) {
  if (node.op->name == "view") return {reshape(ins[0], node.attrs.ints(0))};
  return call(*node.op, ins, node.attrs);
}

}  // namespace

Session::Session(const Graph& graph) : graph_(graph.data()) {}

Tensor Session::run(const Tensor& fetch, const Feeds& feeds) { return run(std::vector<Tensor>{fetch}, feeds)[0]; }

std::vector<Tensor> Session::run(const std::vector<Tensor>& fetches, const Feeds& feeds) {
  const GraphData& g = *graph_;
  const std::size_t n = g.nodes.size();

  std::unordered_map<int, Tensor> fed;
  for (std::size_t i = 0; i < feeds.size(); ++i) {
    const auto& [key, value] = feeds[i];
    ValueRef r = ref_in(graph_, key, "feed", i);
    const Node& p = node_at(g, r.node);
    NABLA_CHECK(p.kind == NodeKind::Placeholder, "Session::run: feed ", i, " is node ", describe(p),
                ", not a placeholder; only placeholders can be fed");
    NABLA_CHECK(value.defined() && !value.is_symbolic(), "Session::run: the value fed to placeholder ", describe(p),
                " must be a concrete tensor");
    NABLA_CHECK(value.dtype() == p.metas[0].dtype, "Session::run: placeholder ", describe(p), " expects dtype ",
                p.metas[0].dtype, " but was fed ", value.dtype());
    NABLA_CHECK(value.sizes() == p.metas[0].sizes, "Session::run: placeholder ", describe(p), " expects shape ",
                p.metas[0].sizes, " but was fed shape ", value.sizes());
    NABLA_CHECK(fed.emplace(r.node, value).second, "Session::run: placeholder ", describe(p), " is fed twice");
  }

  // Mark what the fetches need (pruning): a walk back over inputs.
  std::vector<ValueRef> fetch_refs;
  std::vector<char> needed(n, 0);
  std::vector<int> stack;
  for (std::size_t i = 0; i < fetches.size(); ++i) {
    fetch_refs.push_back(ref_in(graph_, fetches[i], "fetch", i));
    stack.push_back(fetch_refs.back().node);
  }
  while (!stack.empty()) {
    int id = stack.back();
    stack.pop_back();
    if (needed[static_cast<std::size_t>(id)]) continue;
    needed[static_cast<std::size_t>(id)] = 1;
    for (const ValueRef& in : node_at(g, id).inputs) stack.push_back(in.node);
    for (int c : node_at(g, id).control_inputs) stack.push_back(c);
  }

  NoGradGuard no_grad;
  std::vector<TensorList> values(n);
  auto input = [&](const ValueRef& r) -> const Tensor& {
    return values[static_cast<std::size_t>(r.node)][static_cast<std::size_t>(r.output)];
  };
  auto initialized = [&](const Node& node, int id, const char* use) -> Tensor& {
    auto it = variables_.find(id);
    NABLA_CHECK(it != variables_.end(), "Session::run: variable ", describe(node), " is ", use,
                " before it is initialized; run graph.global_variables_initializer() first");
    return it->second;
  };
  for (std::size_t id = 0; id < n; ++id) {
    if (!needed[id]) continue;
    const Node& node = g.nodes[id];
    const int nid = static_cast<int>(id);
    TensorList& out = values[id];
    switch (node.kind) {
      case NodeKind::Placeholder: {
        auto it = fed.find(nid);
        NABLA_CHECK(it != fed.end(), "Session::run: the fetches need placeholder ", describe(node),
                    ", which was not fed; add {placeholder, value} to the feeds");
        out.push_back(it->second);
        break;
      }
      case NodeKind::Constant:
        out.push_back(node.value);
        break;
      case NodeKind::Variable:
        out.push_back(initialized(node, nid, "read"));
        break;
      case NodeKind::Initializer:
        for (int v : node.variables) {
          const Node& var = node_at(g, v);
          variables_[v] = var.init ? var.init->draw() : var.value.clone();
        }
        break;
      case NodeKind::Assign:
      case NodeKind::AssignAdd:
      case NodeKind::AssignSub: {
        const Node& var = node_at(g, node.target);
        const Tensor& value = input(node.inputs[0]);
        if (node.kind == NodeKind::Assign) {
          auto it = variables_.find(node.target);
          // Assigning initializes, as in TensorFlow; otherwise write in place.
          if (it == variables_.end())
            variables_[node.target] = value.clone();
          else
            it->second.copy_(value);
        } else {
          Tensor& v = initialized(var, node.target, "updated");
          if (node.kind == NodeKind::AssignAdd)
            v.add_(value);
          else
            v.sub_(value);
        }
        out.push_back(variables_[node.target]);
        break;
      }
      case NodeKind::Group:
        break;
      case NodeKind::Op: {
        TensorList ins;
        for (const ValueRef& r : node.inputs) ins.push_back(input(r));
        try {
          out = run_op(node, Inputs(ins.data(), ins.size()));
        } catch (const Error& e) {
          throw Error(::nabla::detail::concat(e.what(), "\n  while running node ", describe(node)));
        }
        ++stats_.ops_executed;
        break;
      }
    }
    ++stats_.nodes_executed;
  }
  ++stats_.runs;

  std::vector<Tensor> result;
  for (const ValueRef& r : fetch_refs) {
    const TensorList& vals = values[static_cast<std::size_t>(r.node)];
    if (vals.empty()) {
      result.emplace_back();
      continue;
    }
    Tensor t = vals[static_cast<std::size_t>(r.output)];
    // Variables are updated in place by later runs: hand out copies of them.
    bool aliases = false;
    for (const auto& [id, v] : variables_) aliases |= t.impl()->storage.get() == v.impl()->storage.get();
    result.push_back(aliases ? t.clone() : t);
  }
  return result;
}

Tensor Session::variable_value(const Tensor& variable) const {
  ValueRef r = ref_in(graph_, variable, "variable", 0);
  const Node& node = node_at(*graph_, r.node);
  NABLA_CHECK(node.kind == NodeKind::Variable, "Session::variable_value: node ", describe(node), " is not a variable");
  auto it = variables_.find(r.node);
  NABLA_CHECK(it != variables_.end(), "Session::variable_value: variable ", describe(node),
              " is not initialized; run graph.global_variables_initializer() first");
  return it->second.clone();
}

}  // namespace nabla::graph

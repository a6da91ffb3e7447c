// Replaying a user graph with the fed shapes (specialize.h). Each user node
// is remade in order: placeholders with their fed shape, state nodes
// (constants, variables, assigns, groups, initializers) as they are, op nodes
// by calling the op again on the replayed inputs (so promotion, composites
// and inference run with the new sizes) and Gradients nodes by calling
// gradients() on the replayed values.
#include "nabla/graph/specialize.h"

#include <algorithm>

#include "nabla/graph/control_flow_detail.h"
#include "nabla/graph/gradients.h"
#include "nabla/graph/graph.h"

namespace nabla::graph {

bool has_unknown_dims(const Shape& s) {
  return std::any_of(s.begin(), s.end(), [](int64_t d) { return d < 0; });
}

namespace {

// Renames node `id` of g to `name` when that name is free (the replayed node
// of a user op then reads like the user's in plans and errors).
void take_name(GraphData& g, int id, const std::string& name) {
  auto& used = g.used_names;
  if (std::binary_search(used.begin(), used.end(), name)) return;
  Node& n = g.nodes[static_cast<std::size_t>(id)];
  auto it = std::lower_bound(used.begin(), used.end(), n.name);
  if (it != used.end() && *it == n.name) used.erase(it);
  used.insert(std::upper_bound(used.begin(), used.end(), name), name);
  n.name = name;
}

class Replayer {
 public:
  // Replays into `target`: a new, empty graph (for a subgraph, one that is
  // open while it is replayed into).
  Replayer(const GraphData& user, const PlaceholderShapes& shapes, std::shared_ptr<GraphData> target)
      : user_(user), shapes_(shapes) {
    r_.graph = std::move(target);
    r_.values.resize(user.nodes.size());
    node_of_.assign(user.nodes.size(), -1);
  }

  Replay run() {
    for (std::size_t id = 0; id < user_.nodes.size(); ++id) remake(static_cast<int>(id));
    return std::move(r_);
  }

 private:
  const Tensor& value(const ValueRef& ref, const Node& consumer) const {
    const Tensor& t = r_.values[static_cast<std::size_t>(ref.node)][static_cast<std::size_t>(ref.output)];
    NABLA_CHECK(t.defined(), "graph: node ", describe(consumer), " uses output ", ref.output, " of '",
                user_.nodes[static_cast<std::size_t>(ref.node)].name, "', a gradient that does not exist");
    return t;
  }
  ValueRef ref(const ValueRef& user_ref, const Node& consumer) const {
    return value_of(value(user_ref, consumer))->ref;
  }
  std::vector<Tensor> inputs(const Node& u) const {
    std::vector<Tensor> ins;
    for (const ValueRef& r : u.inputs) ins.push_back(value(r, u));
    return ins;
  }
  std::vector<int> control_inputs(const Node& u) const {
    std::vector<int> out;
    for (int c : u.control_inputs) out.push_back(node_of_[static_cast<std::size_t>(c)]);
    return out;
  }

  // A node remade as it is, its inputs and control inputs mapped.
  TensorList copy(const Node& u) {
    Node n = u;
    for (ValueRef& r : n.inputs) r = ref(r, u);
    n.control_inputs = control_inputs(u);
    return detail::add_node(r_.graph, std::move(n), u.name);
  }

  TensorList remake(const Node& u, int id) {
    switch (u.kind) {
      case NodeKind::Placeholder: {
        Node n = u;
        if (std::optional<Shape> s = shapes_(id)) n.metas[0].sizes = *s;
        r_.graph->unknown_dims |= has_unknown_dims(n.metas[0].sizes);  // not fed: still a recipe
        return detail::add_node(r_.graph, std::move(n), u.name);
      }
      case NodeKind::Op:
        return call_op(u);
      case NodeKind::Gradients:
        return call_gradients(u);
      case NodeKind::Cond:
      case NodeKind::While:
      case NodeKind::WhileGrad: {
        bool unknown = false;
        for (const ValueRef& r : u.inputs)
          unknown |= has_unknown_dims(
              user_.nodes[static_cast<std::size_t>(r.node)].metas[static_cast<std::size_t>(r.output)].sizes);
        if (!unknown) return copy(u);  // its subgraphs hold for any feed
        NABLA_CHECK(u.kind != NodeKind::WhileGrad, "graph: ", describe(u),
                    " differentiates a loop over values with unknown dims, made before they were unknown; "
                    "not supported: build the graph with the unknown-dim placeholder first");
        return control_flow(u);
      }
      default:
        return copy(u);  // constants, variables, assigns, groups, initializers, effects
    }
  }

  TensorList call_op(const Node& u) {
    // The node's control inputs go to every node its replay makes; names
    // of an expansion's nodes read "user_name/op".
    r_.graph->control_scopes.push_back(control_inputs(u));
    r_.graph->scopes.push_back(u.name);
    struct Pop {
      GraphData& g;
      ~Pop() {
        g.control_scopes.pop_back();
        g.scopes.pop_back();
      }
    } pop{*r_.graph};
    std::vector<Tensor> ins = inputs(u);
    return call(*u.op, Inputs(ins.data(), ins.size()), u.attrs);
  }

  // A cond or while_loop on values with unknown dims: its subgraphs are
  // replayed too, their parameters shaped like the replayed inputs.
  TensorList control_flow(const Node& u) {
    std::vector<Tensor> ins = inputs(u);
    Node n = u;
    for (ValueRef& r : n.inputs) r = ref(r, u);
    n.control_inputs = control_inputs(u);
    n.subgraphs.clear();
    std::vector<OutputMetas> results;  // per subgraph
    for (const Subgraph& s : u.subgraphs) {
      auto sub = std::make_shared<GraphData>();
      sub->parent = r_.graph;
      sub->region = s.graph->region;
      detail::OpenSubgraph open(sub);
      auto shapes = [&](int id) -> std::optional<Shape> {
        for (std::size_t k = 0; k < s.params.size(); ++k)
          if (s.params[k] == id) return ins[k].sizes();
        return std::nullopt;
      };
      Replay body = Replayer(*s.graph, shapes, sub).run();
      auto new_ref = [&](const ValueRef& old) {
        return value_of(body.values[static_cast<std::size_t>(old.node)][static_cast<std::size_t>(old.output)])->ref;
      };
      Subgraph out;
      out.graph = sub;
      for (int p : s.params) out.params.push_back(p < 0 ? -1 : new_ref({p, 0}).node);
      OutputMetas metas;
      for (const ValueRef& r : s.results) {
        out.results.push_back(new_ref(r));
        const ValueRef& nr = out.results.back();
        metas.push_back(sub->nodes[static_cast<std::size_t>(nr.node)].metas[static_cast<std::size_t>(nr.output)]);
      }
      results.push_back(std::move(metas));
      n.subgraphs.push_back(std::move(out));
    }
    auto same = [](const OutputMetas& a, const OutputMetas& b) {
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].dtype != b[i].dtype || !(a[i].sizes == b[i].sizes)) return false;
      return true;
    };
    if (u.kind == NodeKind::Cond) {
      NABLA_CHECK(same(results[0], results[1]), "graph: the branches of ", describe(u),
                  " return values of different shapes for the shapes fed");
      n.metas = results[0];
    } else {  // While: subgraphs {cond, body}; the body keeps the loop variables' shapes
      for (std::size_t i = 0; i < n.metas.size(); ++i) n.metas[i] = {ins[i].sizes(), ins[i].dtype()};
      NABLA_CHECK(same(results[1], n.metas), "graph: the body of ", describe(u),
                  " changes the shape of a loop variable for the shapes fed; it must keep them");
    }
    return detail::add_node(r_.graph, std::move(n), u.name);
  }

  TensorList call_gradients(const Node& u) {
    std::vector<Tensor> ins = inputs(u);
    const std::size_t ny = static_cast<std::size_t>(u.num_ys), nx = u.metas.size();
    std::vector<Tensor> ys(ins.begin(), ins.begin() + static_cast<std::ptrdiff_t>(ny));
    std::vector<Tensor> xs(ins.begin() + static_cast<std::ptrdiff_t>(ny),
                           ins.begin() + static_cast<std::ptrdiff_t>(ny + nx));
    std::vector<Tensor> grad_ys;
    if (!u.grad_ys_of.empty()) {
      grad_ys.resize(ny);
      for (std::size_t k = 0; k < u.grad_ys_of.size(); ++k)
        grad_ys[static_cast<std::size_t>(u.grad_ys_of[k])] = ins[ny + nx + k];
    }
    std::vector<Tensor> grads = gradients(ys, xs, grad_ys, u.loc);
    return TensorList(grads.begin(), grads.end());
  }

  void remake(int id) {
    const Node& u = user_.nodes[static_cast<std::size_t>(id)];
    const std::size_t first = r_.graph->nodes.size();
    TensorList out;
    {
      // Nodes the replay makes carry the user node's source line.
      std::optional<LocationScope> at;
      if (u.loc_known) at.emplace(u.loc);
      try {
        out = remake(u, id);
      } catch (const Error& e) {
        throw Error(::nabla::detail::concat(e.what(), "\n  at node ", describe(u),
                                            ", with the graph's unknown dims (-1) taken from the shapes fed"));
      }
    }
    const std::size_t end = r_.graph->nodes.size();
    for (std::size_t k = first; k < end; ++k) {
      Node& n = r_.graph->nodes[k];
      n.loc = u.loc;
      n.loc_known = u.loc_known;
      n.stored_loc = u.stored_loc;
      r_.origin.push_back(-1);
    }
    Value* v = out.empty() ? nullptr : value_of(out[0]);
    if (u.kind != NodeKind::Op && u.kind != NodeKind::Gradients) {
      r_.origin[first] = id;  // remade as it is: it stands for the user's node
    } else if (end == first + 1 && v && v->ref.node == static_cast<int>(first)) {
      r_.origin[first] = id;  // an op that replayed as one node
      take_name(*r_.graph, static_cast<int>(first), u.name);
    }
    if (v) node_of_[static_cast<std::size_t>(id)] = v->ref.node;
    r_.values[static_cast<std::size_t>(id)] = std::move(out);
  }

  const GraphData& user_;
  const PlaceholderShapes& shapes_;
  Replay r_;
  std::vector<int> node_of_;  // user node -> the replay's node of its first value (itself for no-value nodes)
};

}  // namespace

Replay replay(const GraphData& user, const PlaceholderShapes& shapes) {
  return Replayer(user, shapes, std::make_shared<GraphData>()).run();
}

OptGraph specialize(const GraphData& user, const PlaceholderShapes& shapes) {
  Replay r = replay(user, shapes);
  OptGraph o;
  o.graph.nodes = std::move(r.graph->nodes);
  no_value_inputs_as_control(o.graph);
  o.origin = std::move(r.origin);
  o.source_values.resize(r.values.size());
  for (std::size_t id = 0; id < r.values.size(); ++id) {
    for (const Tensor& t : r.values[id]) {
      Value* v = value_of(t);
      o.source_values[id].push_back(v ? v->ref : ValueRef{-1, 0});
    }
    if (o.source_values[id].empty()) o.source_values[id].push_back({-1, 0});
  }
  return o;
}

}  // namespace nabla::graph

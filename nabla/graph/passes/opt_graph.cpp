// OptGraph bookkeeping: forwarding values and compacting after a pass.
#include "nabla/graph/passes/opt_graph.h"

#include <algorithm>

namespace nabla::graph {

namespace {

std::vector<std::vector<ValueRef>> identity_values(const GraphData& g) {
  std::vector<std::vector<ValueRef>> v(g.nodes.size());
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    std::size_t outs = std::max<std::size_t>(1, g.nodes[i].metas.size());
    for (std::size_t k = 0; k < outs; ++k) v[i].push_back({static_cast<int>(i), static_cast<int>(k)});
  }
  return v;
}

}  // namespace

void no_value_inputs_as_control(GraphData& g) {
  for (Node& n : g.nodes) {
    if (n.kind != NodeKind::Group) continue;
    std::vector<ValueRef> kept;
    for (const ValueRef& r : n.inputs) {
      if (!g.nodes[static_cast<std::size_t>(r.node)].metas.empty()) {
        kept.push_back(r);
      } else if (std::find(n.control_inputs.begin(), n.control_inputs.end(), r.node) == n.control_inputs.end()) {
        n.control_inputs.push_back(r.node);
      }
    }
    n.inputs = std::move(kept);
  }
}

OptGraph copy_of_user_graph(const GraphData& g) {
  OptGraph o;
  o.graph.nodes = g.nodes;
  no_value_inputs_as_control(o.graph);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) o.origin.push_back(static_cast<int>(i));
  o.source_values = identity_values(g);
  return o;
}

OptGraph copy_of_optimized(const OptGraph& g) {
  OptGraph o;
  o.graph.nodes = g.graph.nodes;
  o.origin = g.origin;
  o.source_values = identity_values(g.graph);
  o.read_constants = g.read_constants;
  return o;
}

void OptGraph::forward(ValueRef from, ValueRef to) {
  if (forwards.size() < graph.nodes.size()) forwards.resize(graph.nodes.size());
  auto& f = forwards[static_cast<std::size_t>(from.node)];
  if (f.empty()) {
    std::size_t outs = std::max<std::size_t>(1, node(from.node).metas.size());
    for (std::size_t k = 0; k < outs; ++k) f.push_back({from.node, static_cast<int>(k)});
  }
  f[static_cast<std::size_t>(from.output)] = to;
}

ValueRef OptGraph::resolve(ValueRef r) const {
  while (r.node >= 0 && static_cast<std::size_t>(r.node) < forwards.size()) {
    const auto& f = forwards[static_cast<std::size_t>(r.node)];
    if (f.empty()) break;
    ValueRef next = f[static_cast<std::size_t>(r.output)];
    if (next.node == r.node && next.output == r.output) break;
    r = next;
  }
  return r;
}

void OptGraph::apply_forwards() {
  if (forwards.empty()) return;
  for (Node& n : graph.nodes)
    for (ValueRef& r : n.inputs) r = resolve(r);
  for (auto& outs : source_values)
    for (ValueRef& r : outs)
      if (r.node >= 0) r = resolve(r);
  forwards.clear();
}

void compact(OptGraph& g, const std::vector<int>& roots) {
  g.apply_forwards();
  const std::size_t n = g.graph.nodes.size();
  std::vector<char> keep(n, 0);
  std::vector<int> stack(roots.begin(), roots.end());
  while (!stack.empty()) {
    int id = stack.back();
    stack.pop_back();
    if (id < 0 || keep[static_cast<std::size_t>(id)]) continue;
    keep[static_cast<std::size_t>(id)] = 1;
    for (const ValueRef& in : g.node(id).inputs) stack.push_back(in.node);
    for (int c : g.node(id).control_inputs) stack.push_back(c);
  }
  std::vector<int> new_id(n, -1);
  std::vector<Node> nodes;
  std::vector<int> origin;
  for (std::size_t i = 0; i < n; ++i) {
    if (!keep[i]) continue;
    new_id[i] = static_cast<int>(nodes.size());
    nodes.push_back(std::move(g.graph.nodes[i]));
    origin.push_back(g.origin[i]);
  }
  for (Node& node : nodes) {
    for (ValueRef& r : node.inputs) r.node = new_id[static_cast<std::size_t>(r.node)];
    for (int& c : node.control_inputs) c = new_id[static_cast<std::size_t>(c)];
  }
  for (auto& outs : g.source_values)
    for (ValueRef& r : outs)
      r = r.node >= 0 && new_id[static_cast<std::size_t>(r.node)] >= 0
              ? ValueRef{new_id[static_cast<std::size_t>(r.node)], r.output}
              : ValueRef{-1, 0};
  g.graph.nodes = std::move(nodes);
  g.origin = std::move(origin);
}

bool is_plain_op(const Node& n, std::string_view name, std::size_t outputs) {
  return n.kind == NodeKind::Op && !n.fused && n.op->name == name && n.control_inputs.empty() &&
         n.metas.size() == outputs;
}

std::vector<int> use_counts(const OptGraph& g, const std::vector<ValueRef>& fetches) {
  std::vector<int> uses(static_cast<std::size_t>(g.size()), 0);
  for (const Node& node : g.graph.nodes) {
    for (const ValueRef& r : node.inputs) ++uses[static_cast<std::size_t>(r.node)];
    for (int c : node.control_inputs) ++uses[static_cast<std::size_t>(c)];
  }
  for (const ValueRef& f : fetches) ++uses[static_cast<std::size_t>(f.node)];
  return uses;
}

NodeListRebuild::NodeListRebuild(OptGraph& g) : g_(g), new_id_(static_cast<std::size_t>(g.size()), -1) {
  for (const Node& node : g.graph.nodes) names_.insert(node.name);
}

ValueRef NodeListRebuild::renumber(ValueRef old) const {
  return {new_id_[static_cast<std::size_t>(old.node)], old.output};
}

const Node& NodeListRebuild::kept(int id) const { return nodes_[static_cast<std::size_t>(new_id_[static_cast<std::size_t>(id)])]; }

const OutputMeta& NodeListRebuild::meta(ValueRef r) const {
  return nodes_[static_cast<std::size_t>(r.node)].metas[static_cast<std::size_t>(r.output)];
}

Node NodeListRebuild::take(int id) {
  Node node = std::move(g_.node(id));
  for (ValueRef& r : node.inputs) r = renumber(r);
  for (int& c : node.control_inputs) c = new_id_[static_cast<std::size_t>(c)];
  return node;
}

void NodeListRebuild::keep(int id, Node node) {
  new_id_[static_cast<std::size_t>(id)] = static_cast<int>(nodes_.size());
  nodes_.push_back(std::move(node));
  origin_.push_back(g_.origin[static_cast<std::size_t>(id)]);
}

ValueRef NodeListRebuild::add(const char* pass, const Node& like, std::string_view op, const std::string& name,
                              std::vector<ValueRef> inputs, Shape sizes, DType dtype, Attrs attrs) {
  Node m;
  m.op = find_op(op);
  NABLA_CHECK(m.op, pass, ": ", op, " is not in the op table");
  m.attrs = std::move(attrs);
  m.inputs = std::move(inputs);
  m.metas = {{std::move(sizes), dtype}};
  std::string unique = name;
  for (int k = 1; names_.count(unique); ++k) unique = name + "_" + std::to_string(k);
  names_.insert(unique);
  m.name = std::move(unique);
  // Located where `like` is, for errors and profiles.
  m.loc = like.loc;
  m.loc_known = like.loc_known;
  m.stored_loc = like.stored_loc;
  m.device = like.device;
  nodes_.push_back(std::move(m));
  origin_.push_back(-1);
  return {static_cast<int>(nodes_.size()) - 1, 0};
}

void NodeListRebuild::finish(std::vector<ValueRef>& fetches) {
  for (auto& outs : g_.source_values)
    for (ValueRef& r : outs)
      if (r.node >= 0) r = renumber(r);
  for (ValueRef& f : fetches) f = renumber(f);
  g_.graph.nodes = std::move(nodes_);
  g_.origin = std::move(origin_);
  g_.forwards.clear();
}

}  // namespace nabla::graph

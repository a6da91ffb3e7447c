// The bridge from the op table to graphs: dispatch's call() runs the op's
// inference and, when an input is symbolic, hands the call here. We add one
// Op node; concrete inputs become Constant nodes.
#include <mutex>

#include "nabla/graph/control_flow_detail.h"
#include "nabla/graph/graph.h"

namespace nabla::graph::detail {

namespace {

thread_local std::shared_ptr<GraphData> t_lift_target;
thread_local bool t_used_requires_grad = false;  // a concrete input that requires grad became a constant

TensorList symbolic_call(const OpDef& op, Inputs inputs, const Attrs& attrs, const OutputMetas& metas) {
  std::shared_ptr<GraphData> g;
  for (const Tensor& t : inputs) {
    Value* v = value_of(t);
    if (!v) continue;
    NABLA_CHECK(v->has_value, op.name, ": input '", v->graph->nodes[static_cast<std::size_t>(v->ref.node)].name,
                "' has no value (a group or initializer); only run it");
    // Inside a cond branch or loop body being built, the node goes to that
    // subgraph (control_flow_build.cpp); outer inputs are captured below.
    if (!g) g = build_target(v->graph);
  }
  // compile()'s trace lifts ops whose inputs are all concrete (one requires
  // grad: a parameter) into the graph being traced.
  if (!g && t_lift_target) g = build_target(t_lift_target);
  NABLA_CHECK(g, op.name, ": symbolic input that belongs to no graph");
  const std::source_location* where = current_location();
  Node n;
  n.kind = NodeKind::Op;
  n.op = &op;
  n.attrs = attrs;
  n.metas = metas;
  n.loc_known = where != nullptr;
  if (where) n.loc = *where;
  for (const Tensor& t : inputs) {
    if (Value* v = value_of(t)) {
      n.inputs.push_back(import_value(g, v->graph, v->ref, std::string(op.name).c_str()));
      continue;
    }
    if (t.requires_grad()) t_used_requires_grad = true;
    Node c;
    c.kind = NodeKind::Constant;
    c.metas.push_back({t.sizes(), t.dtype()});
    c.value = t.detach();
    c.loc = n.loc;
    c.loc_known = n.loc_known;
    Tensor ct = add_node(g, std::move(c), "const")[0];
    n.inputs.push_back(value_of(ct)->ref);
  }
  return add_node(g, std::move(n), std::string(op.name));
}

}  // namespace

LiftParametersScope::LiftParametersScope(std::shared_ptr<GraphData> g)
    : prev_(std::move(t_lift_target)), prev_used_(t_used_requires_grad) {
  t_lift_target = std::move(g);
  t_used_requires_grad = false;
}
LiftParametersScope::~LiftParametersScope() {
  t_lift_target = std::move(prev_);
  t_used_requires_grad = prev_used_ || t_used_requires_grad;
}
bool LiftParametersScope::used_requires_grad() const { return t_used_requires_grad; }

void install_symbolic_hook() {
  static std::once_flag once;
  std::call_once(once, [] { set_symbolic_hook(&symbolic_call); });
}

}  // namespace nabla::graph::detail

// The bridge from the op table to graphs: dispatch's call() runs the op's
// inference and, when an input is symbolic, hands the call here. We add one
// Op node; concrete inputs become Constant nodes (in compile()'s trace,
// tensors that require grad become bound variables: compile_tracer.h).
#include <mutex>

#include "nabla/graph/compile_tracer.h"
#include "nabla/graph/control_flow_detail.h"
#include "nabla/graph/graph.h"
#include "nabla/graph/unknown_dims.h"

namespace nabla::graph::detail {

namespace {

thread_local CompileTracer* t_lifting = nullptr;  // compile()'s trace on this thread

// One Op node for `op` on `inputs` with results `metas`.
TensorList add_op_node(const OpDef& op, Inputs inputs, const Attrs& attrs, const OutputMetas& metas) {
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
  // grad: a parameter, or is a buffer) into the graph being traced.
  if (!g && t_lifting) g = build_target(t_lifting->graph());
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
    // In compile()'s trace a parameter or a module's buffer is a variable
    // bound to it, so its updates (eager or compiled) show in later runs.
    if (t_lifting && (t.requires_grad() || ::nabla::detail::is_state(t))) {
      n.inputs.push_back(import_value(g, t_lifting->graph(), t_lifting->bind(t), std::string(op.name).c_str()));
      continue;
    }
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

TensorList symbolic_call(const OpDef& op, Inputs inputs, const Attrs& attrs, const OutputMetas& metas) {
  return add_op_node(op, inputs, attrs, metas);
}

// An input has an unknown dim: the node is kept unexpanded and unpromoted,
// its shape found with stand-ins (unknown_dims.h).
TensorList unknown_dims_call(const OpDef& op, Inputs inputs, const Attrs& attrs) {
  return add_op_node(op, inputs, attrs, infer_with_stand_ins(op, inputs, attrs));
}

}  // namespace

LiftParametersScope::LiftParametersScope(CompileTracer& tracer) : prev_(t_lifting) { t_lifting = &tracer; }
LiftParametersScope::~LiftParametersScope() { t_lifting = prev_; }

void install_symbolic_hook() {
  static std::once_flag once;
  std::call_once(once, [] {
    set_symbolic_hook(&symbolic_call);
    set_unknown_dims_hook(&unknown_dims_call);
  });
}

}  // namespace nabla::graph::detail

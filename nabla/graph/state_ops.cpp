// assign / assign_add / assign_sub / group: graph nodes with effects on the
// Session's variables. Their checks run at build time, like ops' inference.
#include "nabla/graph/graph.h"

namespace nabla::graph {

namespace {

Tensor make_assign(NodeKind kind, const char* api, const Tensor& variable, const Tensor& value,
                   std::source_location loc) {
  Value* var = value_of(variable);
  NABLA_CHECK(var, api, ": expected a graph variable as the first argument, got a ",
              variable.defined() ? "concrete" : "undefined", " tensor");
  const std::shared_ptr<GraphData>& g = var->graph;
  const Node& vn = g->nodes[static_cast<std::size_t>(var->ref.node)];
  NABLA_CHECK(vn.kind == NodeKind::Variable, api, ": expected a graph variable as the first argument, got node '",
              vn.name, "'");
  NABLA_CHECK(value.defined(), api, ": the value for variable '", vn.name, "' is an undefined tensor");
  NABLA_CHECK(value.sizes() == vn.metas[0].sizes && value.dtype() == vn.metas[0].dtype, api, ": variable '", vn.name,
              "' is ", vn.metas[0].dtype, " of shape ", vn.metas[0].sizes, " but the value is ", value.dtype(),
              " of shape ", value.sizes(), "; expected the same dtype and shape");
  // add_node below may grow g->nodes and so invalidate `vn`: keep what is needed.
  const std::string var_name = vn.name;
  Node n;
  n.kind = kind;
  n.target = var->ref.node;
  n.metas = vn.metas;
  n.loc = loc;
  Tensor v = value;
  if (Value* vv = value_of(v)) {
    NABLA_CHECK(vv->graph == g, api, ": the value comes from another graph than variable '", var_name, "'");
    NABLA_CHECK(vv->has_value, api, ": the value for variable '", var_name, "' has no value (a group or initializer)");
    n.inputs.push_back(vv->ref);
  } else {
    Node c;
    c.kind = NodeKind::Constant;
    c.metas.push_back({value.sizes(), value.dtype()});
    c.value = value.detach();
    c.loc = loc;
    n.inputs.push_back(value_of(detail::add_node(g, std::move(c), "const")[0])->ref);
  }
  // Named "w_assign" (the scope is the current one, not the variable's).
  return detail::add_node(g, std::move(n), var_name.substr(var_name.rfind('/') + 1) + "_" + api)[0];
}

}  // namespace

Tensor assign(const Tensor& variable, const Tensor& value, std::source_location loc) {
  return make_assign(NodeKind::Assign, "assign", variable, value, loc);
}
Tensor assign_add(const Tensor& variable, const Tensor& value, std::source_location loc) {
  return make_assign(NodeKind::AssignAdd, "assign_add", variable, value, loc);
}
Tensor assign_sub(const Tensor& variable, const Tensor& value, std::source_location loc) {
  return make_assign(NodeKind::AssignSub, "assign_sub", variable, value, loc);
}

Tensor group(const std::vector<Tensor>& inputs, std::source_location loc) {
  NABLA_CHECK(!inputs.empty(), "group: expected at least one input");
  std::shared_ptr<GraphData> g;
  Node n;
  n.kind = NodeKind::Group;
  n.loc = loc;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    Value* v = value_of(inputs[i]);
    NABLA_CHECK(v, "group: input ", i, " is not a graph value (got a ", inputs[i].defined() ? "concrete" : "undefined",
                " tensor)");
    NABLA_CHECK(!g || g == v->graph, "group: inputs come from two different graphs");
    g = v->graph;
    n.inputs.push_back(v->ref);
  }
  return detail::add_node(g, std::move(n), "group")[0];
}

Tensor group(std::initializer_list<Tensor> inputs, std::source_location loc) {
  return group(std::vector<Tensor>(inputs), loc);
}

}  // namespace nabla::graph

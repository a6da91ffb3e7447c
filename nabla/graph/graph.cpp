// Graph: node bookkeeping (unique names, scopes, source lines) and the
// graph-level API (placeholder, constant, variable, initializer).
#include "nabla/graph/graph.h"

#include <algorithm>

#include "nabla/graph/placement.h"
#include "nabla/graph/print.h"

namespace nabla::graph {

namespace detail {
void install_symbolic_hook();  // graph/symbolic_hook.cpp
}

namespace {

thread_local const std::source_location* t_location = nullptr;

bool name_used(const GraphData& g, const std::string& n) {
  return std::binary_search(g.used_names.begin(), g.used_names.end(), n);
}

void use_name(GraphData& g, const std::string& n) {
  g.used_names.insert(std::upper_bound(g.used_names.begin(), g.used_names.end(), n), n);
}

// "scope/base", then "scope/base_1", "scope/base_2", ... until unused.
std::string unique_name(GraphData& g, const std::string& base) {
  std::string prefix;
  for (const std::string& s : g.scopes) prefix += s + "/";
  std::string name = prefix + base;
  for (int i = 1; name_used(g, name); ++i) name = prefix + base + "_" + std::to_string(i);
  use_name(g, name);
  return name;
}

Tensor symbolic_tensor(const std::shared_ptr<GraphData>& g, ValueRef r, const OutputMeta* meta) {
  // No-value nodes get an empty bool tensor so they can still be fetched.
  Shape sizes = meta ? meta->sizes : Shape{0};
  DType dtype = meta ? meta->dtype : kBool;
  auto impl = make_ref<TensorImpl>(Ref<Storage>(), sizes, contiguous_strides(sizes), 0, dtype, kCPU);
  impl->symbolic = make_ref<Value>(g, r, meta != nullptr);
  return Tensor(std::move(impl));
}

void check_name(const char* api, const std::string& name) {
  NABLA_CHECK(!name.empty() && name.find('/') == std::string::npos, api, ": name '", name,
              "' must be non-empty and contain no '/' (use name_scope for prefixes)");
}

}  // namespace

namespace detail {

TensorList add_node(const std::shared_ptr<GraphData>& g, Node node, const std::string& base) {
  // Control flow: effects inside a cond branch or loop body are not supported
  // (a subgraph has no Session state; in the root graph they would run
  // unconditionally). g has a parent: a subgraph; open_subgraphs: one is open.
  const bool effect = changes_state(node.kind) || node.kind == NodeKind::Group;
  NABLA_CHECK(!effect || (g->parent.expired() && g->open_subgraphs.empty()), "graph: '", base,
              "': assign, group, initializer and optimizer-step nodes cannot be made inside a cond branch or "
              "while_loop function (not supported); make them outside, from the values the cond or while_loop "
              "returns");
  // A value's element count must fit int64 (its TensorImpl counts them, its
  // strides multiply its dims): an op's inference on a huge symbolic shape
  // (a model file's dims, pads, sizes) is refused here, before the node is
  // added. Unknown (-1) and zero dims count as 1, as the strides take them.
  for (std::size_t k = 0; k < node.metas.size(); ++k) {
    int64_t span = 1;
    for (int64_t d : node.metas[k].sizes)
      NABLA_CHECK(!__builtin_mul_overflow(span, std::max<int64_t>(d, 1), &span), "graph: '", base, "': output ", k,
                  " of shape ", node.metas[k].sizes, " has more elements than fit in int64");
  }
  node.name = unique_name(*g, base);
  // DeviceScope: top-level nodes only (a body runs where its cond/while does).
  if (node.device.empty() && !g->device_scopes.empty() && g->parent.expired())
    node.device = g->device_scopes.back();
  for (const std::vector<int>& scope : g->control_scopes)
    for (int c : scope)
      if (std::find(node.control_inputs.begin(), node.control_inputs.end(), c) == node.control_inputs.end())
        node.control_inputs.push_back(c);
  int id = static_cast<int>(g->nodes.size());
  OutputMetas metas = node.metas;
  g->nodes.push_back(std::move(node));
  TensorList out;
  if (metas.empty()) {
    out.push_back(symbolic_tensor(g, {id, 0}, nullptr));
  } else {
    for (std::size_t i = 0; i < metas.size(); ++i)
      out.push_back(symbolic_tensor(g, {id, static_cast<int>(i)}, &metas[i]));
  }
  return out;
}

Tensor value_tensor(const std::shared_ptr<GraphData>& g, ValueRef r) {
  const Node& n = g->nodes.at(static_cast<std::size_t>(r.node));
  NABLA_CHECK(r.output >= 0 && static_cast<std::size_t>(r.output) < n.metas.size(), "graph: node '", n.name,
              "' has no output ", r.output);
  return symbolic_tensor(g, r, &n.metas[static_cast<std::size_t>(r.output)]);
}

Tensor output_tensor(const std::shared_ptr<GraphData>& g, ValueRef r) {
  const Node& n = g->nodes.at(static_cast<std::size_t>(r.node));
  NABLA_CHECK(r.output >= 0 && (n.metas.empty() ? r.output == 0 : static_cast<std::size_t>(r.output) < n.metas.size()),
              "graph: output ", r.output, " of node '", n.name, "' does not exist");
  return symbolic_tensor(g, r, n.metas.empty() ? nullptr : &n.metas[static_cast<std::size_t>(r.output)]);
}

const std::source_location* current_location() { return t_location; }

}  // namespace detail

Value* value_of(const Tensor& t) {
  if (!t.defined() || !t.is_symbolic() || !t.impl()->symbolic) return nullptr;
  return static_cast<Value*>(t.impl()->symbolic.get());
}

std::string describe(const Node& n) {
  if (n.stored_loc)
    return ::nabla::detail::concat("'", n.name, "' (created at ", n.stored_loc->file, ":", n.stored_loc->line, ")");
  if (!n.loc_known) return "'" + n.name + "' (source line unknown: made outside a graph::LocationScope)";
  return ::nabla::detail::concat("'", n.name, "' (created at ", n.loc.file_name(), ":", n.loc.line(), ")");
}

LocationScope::LocationScope(std::source_location loc) : prev_(t_location), loc_(loc) { t_location = &loc_; }
LocationScope::~LocationScope() { t_location = prev_; }

Graph::Graph() : data_(std::make_shared<GraphData>()) { detail::install_symbolic_hook(); }
Graph::Graph(std::shared_ptr<GraphData> data) : data_(std::move(data)) {
  NABLA_CHECK(data_, "Graph: expected graph data, got a null pointer");
  detail::install_symbolic_hook();
}

DeviceScope::DeviceScope(Graph& g, const std::string& device) : g_(g.data()) {
  NABLA_CHECK(g_->parent.expired(), "graph::DeviceScope: this is ", g_->region,
              ", not a top-level graph; place the cond or while_loop instead");
  if (!device.empty()) parse_placement(device, "graph::DeviceScope");
  g_->device_scopes.push_back(merge_placement(g_->device_scopes.empty() ? "" : g_->device_scopes.back(), device));
}

DeviceScope::~DeviceScope() { g_->device_scopes.pop_back(); }

Tensor Graph::set_device(const Tensor& t, const std::string& device) {
  Value* v = value_of(t);
  NABLA_CHECK(v && v->graph == data_, "Graph::set_device: expected a value of this graph, got ",
              v ? "one of another graph" : "a tensor that is not a graph value");
  NABLA_CHECK(v->graph->parent.expired(), "Graph::set_device: node '", node(v->ref.node).name, "' is inside ",
              v->graph->region, "; place the cond or while_loop instead");
  if (!device.empty()) parse_placement(device, ::nabla::detail::concat("Graph::set_device('", node(v->ref.node).name, "')"));
  data_->nodes[static_cast<std::size_t>(v->ref.node)].device = device;
  return t;
}

std::string Graph::device_of(const Tensor& t) const { return node_of(t).device; }

Graph Graph::of(const Tensor& t) {
  Value* v = value_of(t);
  NABLA_CHECK(v, "Graph::of: expected a symbolic tensor (a graph value), got a ",
              t.defined() ? "concrete" : "undefined", " tensor");
  return Graph(v->graph);
}

Tensor Graph::placeholder(DType dtype, IntList shape, const std::string& name, std::source_location loc) {
  check_name("Graph::placeholder", name);
  bool unknown = false;
  for (int64_t d : shape) {
    NABLA_CHECK(d >= -1, "Graph::placeholder '", name, "': shape ", shape,
                " has a negative dim; give each size, or -1 for a dim known only when fed");
    unknown |= d == -1;
  }
  NABLA_CHECK(!unknown || (data_->parent.expired() && data_->open_subgraphs.empty()), "Graph::placeholder '", name,
              "': a placeholder with unknown dims (-1) cannot be made while a cond branch or loop body is built");
  data_->unknown_dims |= unknown;
  Node n;
  n.kind = NodeKind::Placeholder;
  n.metas.push_back({shape.shape(), dtype});
  n.loc = loc;
  return detail::add_node(data_, std::move(n), name)[0];
}

Tensor Graph::constant(const Tensor& value, const std::string& name, std::source_location loc) {
  check_name("Graph::constant", name);
  NABLA_CHECK(value.defined() && !value.is_symbolic(), "Graph::constant '", name, "': expected a concrete tensor, got ",
              value.defined() ? "a symbolic one" : "an undefined one");
  Node n;
  n.kind = NodeKind::Constant;
  n.metas.push_back({value.sizes(), value.dtype()});
  n.value = value.detach();
  n.loc = loc;
  return detail::add_node(data_, std::move(n), name)[0];
}

Tensor Graph::variable(const Tensor& initial_value, const std::string& name, bool trainable, std::source_location loc) {
  check_name("Graph::variable", name);
  NABLA_CHECK(
      initial_value.defined() && !initial_value.is_symbolic(), "Graph::variable '", name,
      "': expected a concrete initial value, got ",
      initial_value.defined() ? "a symbolic one (for a drawn initial value use an initializer: graph::init::random_normal(...))" : "an undefined tensor");
  Node n;
  n.kind = NodeKind::Variable;
  n.metas.push_back({initial_value.sizes(), initial_value.dtype()});
  // Copied so that later writes to the caller's tensor do not change it.
  n.value = initial_value.detach().clone();
  n.trainable = trainable;
  n.loc = loc;
  return detail::add_node(data_, std::move(n), name)[0];
}

Tensor Graph::variable(const Initializer& init, const std::string& name, bool trainable, std::source_location loc) {
  check_name("Graph::variable", name);
  init.check(::nabla::detail::concat("Graph::variable '", name, "'"));
  Node n;
  n.kind = NodeKind::Variable;
  n.metas.push_back({init.shape, init.dtype});
  n.init = init;
  n.trainable = trainable;
  n.loc = loc;
  return detail::add_node(data_, std::move(n), name)[0];
}

Tensor Graph::global_variables_initializer(std::source_location loc) {
  Node n;
  n.kind = NodeKind::Initializer;
  for (std::size_t i = 0; i < data_->nodes.size(); ++i)
    if (data_->nodes[i].kind == NodeKind::Variable) n.variables.push_back(static_cast<int>(i));
  n.loc = loc;
  return detail::add_node(data_, std::move(n), "init")[0];
}

void Graph::seed(uint64_t seed) {
  NABLA_CHECK(data_->parent.expired(), "Graph::seed: this is ", data_->region,
              ", not a top-level graph; set the seed on the graph that holds it");
  data_->seed = seed;
}

std::optional<uint64_t> Graph::seed() const { return data_->seed; }

std::vector<Tensor> Graph::variables(bool trainable_only) const {
  std::vector<Tensor> out;
  for (std::size_t i = 0; i < data_->nodes.size(); ++i) {
    const Node& n = data_->nodes[i];
    if (n.kind != NodeKind::Variable || (trainable_only && !n.trainable)) continue;
    out.push_back(symbolic_tensor(data_, {static_cast<int>(i), 0}, &n.metas[0]));
  }
  return out;
}

const Node& Graph::node_of(const Tensor& t) const {
  Value* v = value_of(t);
  NABLA_CHECK(v && v->graph == data_, "Graph::node_of: expected a symbolic tensor of this graph");
  return node(v->ref.node);
}

std::string Graph::to_text() const { return graph::to_text(*data_); }
std::string Graph::to_dot() const { return graph::to_dot(*data_); }

Graph::NameScope::NameScope(Graph& g, const std::string& name) : g_(g) {
  check_name("Graph::name_scope", name);
  g_.data_->scopes.push_back(name);
}
Graph::NameScope::~NameScope() { g_.data_->scopes.pop_back(); }

Graph::ControlDependencies::ControlDependencies(Graph& g, const std::vector<Tensor>& deps) : g_(g) {
  std::vector<int> ids;
  for (std::size_t i = 0; i < deps.size(); ++i) {
    Value* v = value_of(deps[i]);
    NABLA_CHECK(v, "Graph::control_dependencies: dependency ", i, " is not a graph value (got a ",
                deps[i].defined() ? "concrete" : "undefined", " tensor); pass nodes of this graph");
    NABLA_CHECK(v->graph == g.data_, "Graph::control_dependencies: dependency ", i, " ('",
                v->graph->nodes[static_cast<std::size_t>(v->ref.node)].name, "') belongs to another graph");
    ids.push_back(v->ref.node);
  }
  g_.data_->control_scopes.push_back(std::move(ids));
}
Graph::ControlDependencies::~ControlDependencies() { g_.data_->control_scopes.pop_back(); }

}  // namespace nabla::graph

// Building cond / while_loop nodes. A branch or loop function runs while a
// fresh subgraph is open (OpenSubgraph): the symbolic hook sends the nodes of
// its ops there, and every outer value they use is imported as a capture (a
// placeholder of the subgraph, bound at run time to an input of the
// control-flow node). Nested cond/while_loop nest subgraphs: a value of the
// root captured two levels down is captured by each level in turn.
#include <string>

#include "nabla/graph/control_flow.h"
#include "nabla/graph/control_flow_detail.h"

namespace nabla::graph {

namespace detail {

std::shared_ptr<GraphData> root_of(const std::shared_ptr<GraphData>& g) {
  std::shared_ptr<GraphData> r = g;
  while (std::shared_ptr<GraphData> p = r->parent.lock()) r = std::move(p);
  return r;
}

std::shared_ptr<GraphData> build_target(const std::shared_ptr<GraphData>& g) {
  std::shared_ptr<GraphData> r = root_of(g);
  return r->open_subgraphs.empty() ? r : r->open_subgraphs.back();
}

OpenSubgraph::OpenSubgraph(const std::shared_ptr<GraphData>& sub) : root_(root_of(sub)) {
  root_->open_subgraphs.push_back(sub);
}
OpenSubgraph::~OpenSubgraph() { root_->open_subgraphs.pop_back(); }

namespace {

bool encloses(const std::shared_ptr<GraphData>& outer, std::shared_ptr<GraphData> g) {
  for (; g; g = g->parent.lock())
    if (g == outer) return true;
  return false;
}

ValueRef capture(const std::shared_ptr<GraphData>& target, const std::shared_ptr<GraphData>& src, ValueRef ref) {
  if (src == target) return ref;
  std::shared_ptr<GraphData> parent = target->parent.lock();
  ValueRef in_parent = capture(parent, src, ref);
  for (std::size_t i = 0; i < target->captures.size(); ++i)
    if (target->captures[i].node == in_parent.node && target->captures[i].output == in_parent.output)
      return {target->capture_params[i], 0};
  // Copies: add_node below may move target's nodes (never parent's, but be plain).
  const Node& outer = parent->nodes[static_cast<std::size_t>(in_parent.node)];
  Node ph;
  ph.kind = NodeKind::Placeholder;
  ph.metas.push_back(outer.metas[static_cast<std::size_t>(in_parent.output)]);
  ph.loc = outer.loc;
  ph.loc_known = outer.loc_known;
  const std::string base = outer.name.substr(outer.name.rfind('/') + 1);
  const int id = static_cast<int>(target->nodes.size());
  add_node(target, std::move(ph), base);
  target->captures.push_back(in_parent);
  target->capture_params.push_back(id);
  return {id, 0};
}

}  // namespace

ValueRef import_value(const std::shared_ptr<GraphData>& target, const std::shared_ptr<GraphData>& src, ValueRef ref,
                      const char* api) {
  if (src == target) return ref;
  const Node& n = src->nodes[static_cast<std::size_t>(ref.node)];
  NABLA_CHECK(root_of(src) == root_of(target), api, ": input '", n.name, "' comes from another graph");
  NABLA_CHECK(encloses(src, target), api, ": input ", describe(n), " was made inside ", src->region,
              " and cannot be used outside it; use the values the cond or while_loop returns");
  return capture(target, src, ref);
}

}  // namespace detail

namespace {

std::string site(const char* api, const std::source_location& loc) {
  return ::nabla::detail::concat(api, " (created at ", loc.file_name(), ":", loc.line(), ")");
}

// A subgraph built by one function.
struct Built {
  std::shared_ptr<GraphData> graph;
  std::vector<int> own_params;  // placeholders for the loop variables (while_loop)
  std::vector<ValueRef> results;
  OutputMetas metas;
};

// A value a function returned, as a value of `sub`.
ValueRef result_ref(const std::shared_ptr<GraphData>& sub, const Tensor& t, const std::string& what,
                    const char* api) {
  NABLA_CHECK(t.defined(), what, " is an undefined tensor; expected a graph value or a concrete tensor");
  if (!t.is_symbolic()) {
    Node c;
    c.kind = NodeKind::Constant;
    c.metas.push_back({t.sizes(), t.dtype()});
    c.value = t.detach();
    const int id = static_cast<int>(sub->nodes.size());
    detail::add_node(sub, std::move(c), "const");
    return {id, 0};
  }
  Value* v = value_of(t);
  NABLA_CHECK(v && v->has_value, what, " has no value (a group or initializer); return values");
  return detail::import_value(sub, v->graph, v->ref, api);
}

// Opens a subgraph of `parent` named `scope`, makes a placeholder per entry of
// `param_metas`, calls fn on them and records what it returns.
Built build_body(const std::shared_ptr<GraphData>& parent, const std::string& scope, const std::string& region,
                 const OutputMetas& param_metas, const std::source_location& loc,
                 const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& fn, const std::string& what,
                 const char* api) {
  Built b;
  b.graph = std::make_shared<GraphData>();
  b.graph->parent = parent;
  b.graph->scopes = parent->scopes;
  b.graph->scopes.push_back(scope);
  b.graph->region = region;
  std::vector<Tensor> args;
  for (const OutputMeta& m : param_metas) {
    Node ph;
    ph.kind = NodeKind::Placeholder;
    ph.metas.push_back(m);
    ph.loc = loc;
    b.own_params.push_back(static_cast<int>(b.graph->nodes.size()));
    args.push_back(detail::add_node(b.graph, std::move(ph), "var")[0]);
  }
  detail::OpenSubgraph open(b.graph);
  std::vector<Tensor> outs = fn(args);
  for (std::size_t i = 0; i < outs.size(); ++i) {
    b.results.push_back(result_ref(b.graph, outs[i], ::nabla::detail::concat(what, i), api));
    const ValueRef& r = b.results.back();
    b.metas.push_back(b.graph->nodes[static_cast<std::size_t>(r.node)].metas[static_cast<std::size_t>(r.output)]);
  }
  return b;
}

// Adds b's captures to `caps` (the owner node's captured inputs, which follow
// its `prefix` leading inputs) and returns b as a Subgraph bound to them.
Subgraph bind_body(const Built& b, std::size_t prefix, std::vector<ValueRef>& caps) {
  Subgraph s;
  s.graph = b.graph;
  s.results = b.results;
  s.params.assign(prefix, -1);
  for (std::size_t k = 0; k < b.own_params.size(); ++k) s.params[k] = b.own_params[k];
  for (std::size_t i = 0; i < b.graph->captures.size(); ++i) {
    const ValueRef& c = b.graph->captures[i];
    std::size_t j = 0;
    while (j < caps.size() && !(caps[j].node == c.node && caps[j].output == c.output)) ++j;
    if (j == caps.size()) caps.push_back(c);
    if (s.params.size() < prefix + caps.size()) s.params.resize(prefix + caps.size(), -1);
    s.params[prefix + j] = b.graph->capture_params[i];
  }
  return s;
}

void pad_params(Subgraph& s, std::size_t size) { s.params.resize(size, -1); }

std::string meta_str(const OutputMeta& m) { return ::nabla::detail::concat(m.dtype, " of shape ", IntList(m.sizes)); }

bool same_meta(const OutputMeta& a, const OutputMeta& b) { return a.dtype == b.dtype && a.sizes == b.sizes; }

}  // namespace

std::vector<Tensor> cond(const Tensor& pred, const BranchFn& true_fn, const BranchFn& false_fn,
                         std::source_location loc) {
  const std::string where = site("cond", loc);
  NABLA_CHECK(true_fn && false_fn, where, ": true_fn and false_fn must both be callable");
  NABLA_CHECK(pred.defined(), where, ": pred is an undefined tensor; expected a scalar bool");
  NABLA_CHECK(pred.dtype() == kBool && pred.dim() == 0, where, ": pred must be a scalar bool, got ", pred.dtype(),
              " of shape ", pred.sizes());
  if (!pred.is_symbolic()) return pred.item<bool>() ? true_fn() : false_fn();
  Value* pv = value_of(pred);
  NABLA_CHECK(pv && pv->has_value, where, ": pred has no value (a group or initializer)");
  const std::shared_ptr<GraphData> target = detail::build_target(pv->graph);
  const ValueRef pred_ref = detail::import_value(target, pv->graph, pv->ref, "cond");

  auto call = [](const BranchFn& f) { return [&f](const std::vector<Tensor>&) { return f(); }; };
  Built t = build_body(target, "cond_true", "the true branch of " + where, {}, loc, call(true_fn),
                       where + ": the true branch's value ", "cond");
  Built f = build_body(target, "cond_false", "the false branch of " + where, {}, loc, call(false_fn),
                       where + ": the false branch's value ", "cond");
  NABLA_CHECK(t.results.size() == f.results.size(), where, ": the true branch returns ", t.results.size(),
              " values but the false branch returns ", f.results.size(),
              "; both branches must return the same number of values");
  NABLA_CHECK(!t.results.empty(), where, ": the branches return no values; return at least one");
  for (std::size_t i = 0; i < t.metas.size(); ++i)
    NABLA_CHECK(same_meta(t.metas[i], f.metas[i]), where, ": value ", i, " of the true branch is ",
                meta_str(t.metas[i]), " but value ", i, " of the false branch is ", meta_str(f.metas[i]),
                "; both branches must return equal dtypes and shapes");

  std::vector<ValueRef> caps;
  Node n;
  n.kind = NodeKind::Cond;
  n.subgraphs.push_back(bind_body(t, 1, caps));
  n.subgraphs.push_back(bind_body(f, 1, caps));
  for (Subgraph& s : n.subgraphs) pad_params(s, 1 + caps.size());
  n.inputs.push_back(pred_ref);
  n.inputs.insert(n.inputs.end(), caps.begin(), caps.end());
  n.metas = t.metas;
  n.loc = loc;
  return detail::add_node(target, std::move(n), "cond").vec();
}

Tensor cond(const Tensor& pred, const std::function<Tensor()>& true_fn, const std::function<Tensor()>& false_fn,
            std::source_location loc) {
  NABLA_CHECK(true_fn && false_fn, site("cond", loc), ": true_fn and false_fn must both be callable");
  return cond(
      pred, [&] { return std::vector<Tensor>{true_fn()}; }, [&] { return std::vector<Tensor>{false_fn()}; }, loc)[0];
}

std::vector<Tensor> while_loop(const LoopCondFn& cond_fn, const LoopBodyFn& body_fn,
                               const std::vector<Tensor>& loop_vars, int64_t maximum_iterations,
                               std::source_location loc) {
  const std::string where = site("while_loop", loc);
  NABLA_CHECK(cond_fn && body_fn, where, ": cond_fn and body_fn must both be callable");
  NABLA_CHECK(!loop_vars.empty(), where, ": expected at least one loop variable, got none");
  NABLA_CHECK(maximum_iterations >= -1, where, ": maximum_iterations must be >= 0 (or -1 for no limit), got ",
              maximum_iterations);
  std::shared_ptr<GraphData> g;
  for (std::size_t i = 0; i < loop_vars.size(); ++i) {
    NABLA_CHECK(loop_vars[i].defined(), where, ": loop variable ", i, " is an undefined tensor");
    if (Value* v = value_of(loop_vars[i])) {
      NABLA_CHECK(v->has_value, where, ": loop variable ", i, " has no value (a group or initializer)");
      if (!g) g = v->graph;
    }
  }
  NABLA_CHECK(g, where, ": no loop variable is a graph value; at least one must be (concrete ones become constants)");
  const std::shared_ptr<GraphData> target = detail::build_target(g);
  std::vector<ValueRef> init;
  OutputMetas metas;
  for (const Tensor& t : loop_vars) {
    init.push_back(result_ref(target, t, where + ": loop variable", "while_loop"));
    metas.push_back({t.sizes(), t.dtype()});
  }

  Built c = build_body(
      target, "while_cond", "the condition of " + where, metas, loc,
      [&](const std::vector<Tensor>& vars) { return std::vector<Tensor>{cond_fn(vars)}; },
      where + ": the value cond_fn returns", "while_loop");
  NABLA_CHECK(c.metas[0].dtype == kBool && c.metas[0].sizes.empty(), where, ": cond_fn must return a scalar bool, got ",
              meta_str(c.metas[0]));
  Built b = build_body(target, "while_body", "the body of " + where, metas, loc, body_fn,
                       where + ": body_fn's value ", "while_loop");
  NABLA_CHECK(b.results.size() == metas.size(), where, ": body_fn returns ", b.results.size(), " values but there are ",
              metas.size(), " loop variables; it must return one new value per loop variable");
  for (std::size_t i = 0; i < metas.size(); ++i)
    NABLA_CHECK(same_meta(b.metas[i], metas[i]), where, ": body_fn returns ", meta_str(b.metas[i]),
                " for loop variable ", i, ", which is ", meta_str(metas[i]),
                "; the body must keep each loop variable's dtype and shape");

  std::vector<ValueRef> caps;
  Node n;
  n.kind = NodeKind::While;
  n.subgraphs.push_back(bind_body(c, metas.size(), caps));
  n.subgraphs.push_back(bind_body(b, metas.size(), caps));
  for (Subgraph& s : n.subgraphs) pad_params(s, metas.size() + caps.size());
  n.inputs = init;
  n.inputs.insert(n.inputs.end(), caps.begin(), caps.end());
  n.metas = metas;
  n.attrs = Attrs{AttrValue(maximum_iterations)};
  n.loc = loc;
  return detail::add_node(target, std::move(n), "while").vec();
}

}  // namespace nabla::graph

// One forward sweep; inputs are resolved first, so rewrites cascade
// (neg(neg(x * 1)) becomes x).
#include "nabla/graph/passes/algebraic.h"

#include <string_view>

#include "nabla/core/grad_mode.h"

namespace nabla::graph {

namespace {

bool is_assign(NodeKind k) { return k == NodeKind::Assign || k == NodeKind::AssignAdd || k == NodeKind::AssignSub; }

// Whether value r may share memory with a variable (a read, an assign's
// result, or a view of one).
bool may_alias_state(const OptGraph& g, ValueRef r) {
  const Node& p = g.node(r.node);
  if (p.kind == NodeKind::Variable || is_assign(p.kind)) return true;
  if (p.kind == NodeKind::Op && !p.fused && !p.inputs.empty() && (p.op->has(kView) || p.op->name == "view"))
    return may_alias_state(g, p.inputs[0]);
  return false;
}

// Input r is a constant whose every element equals v.
bool constant_all(const OptGraph& g, ValueRef r, double v) {
  const Node& p = g.node(r.node);
  if (p.kind != NodeKind::Constant || !p.value.defined() || p.value.numel() == 0) return false;
  NoGradGuard no_grad;
  for (double x : p.value.to(kFloat64).contiguous().to_vector<double>())
    if (x != v) return false;
  return true;
}

bool same_meta(const OutputMeta& a, const OutputMeta& b) { return a.dtype == b.dtype && a.sizes == b.sizes; }

// The value n simplifies to, or {-1, 0}.
ValueRef simplified(const OptGraph& g, const Node& n) {
  const std::string_view op = n.op->name;
  const auto& in = n.inputs;
  auto meta_of = [&](ValueRef r) -> const OutputMeta& {
    return g.node(r.node).metas[static_cast<std::size_t>(r.output)];
  };
  auto keeps = [&](ValueRef x) { return same_meta(meta_of(x), n.metas[0]) ? x : ValueRef{-1, 0}; };
  if (in.size() == 2) {
    if (op == "mul" && constant_all(g, in[1], 1.0)) return keeps(in[0]);
    if (op == "mul" && constant_all(g, in[0], 1.0)) return keeps(in[1]);
    if (op == "add" && constant_all(g, in[1], 0.0)) return keeps(in[0]);
    if (op == "add" && constant_all(g, in[0], 0.0)) return keeps(in[1]);
    if (op == "sub" && constant_all(g, in[1], 0.0)) return keeps(in[0]);
    if (op == "div" && constant_all(g, in[1], 1.0)) return keeps(in[0]);
    return {-1, 0};
  }
  if (in.size() != 1) return {-1, 0};
  if (op == "view" || op == "expand" || op == "cast" || op == "clone") return keeps(in[0]);
  const Node& p = g.node(in[0].node);
  bool inner_plain = p.kind == NodeKind::Op && !p.fused && p.control_inputs.empty();
  if (op == "neg" && inner_plain && p.op->name == "neg") return keeps(p.inputs[0]);
  if (op == "permute" && inner_plain && p.op->name == "permute") {
    const Shape& outer = n.attrs.ints(0);
    const Shape& inner = p.attrs.ints(0);
    const int64_t nd = static_cast<int64_t>(outer.size());
    auto wrap = [&](int64_t d) { return d < 0 ? d + nd : d; };
    // out dim i = inner's dim outer[i] = x's dim inner[outer[i]].
    for (int64_t i = 0; i < nd; ++i)
      if (wrap(inner[static_cast<std::size_t>(wrap(outer[static_cast<std::size_t>(i)]))]) != i) return {-1, 0};
    return keeps(p.inputs[0]);
  }
  return {-1, 0};
}

}  // namespace

int simplify_algebra(OptGraph& g) {
  int simplified_count = 0;
  for (int id = 0; id < g.size(); ++id) {
    Node& n = g.node(id);
    for (ValueRef& r : n.inputs) r = g.resolve(r);
    if (n.kind != NodeKind::Op || n.fused || n.metas.size() != 1 || !n.control_inputs.empty()) continue;
    ValueRef x = simplified(g, n);
    if (x.node < 0 || may_alias_state(g, x)) continue;
    // The inputs dropped (the 1 of x * 1) must not carry control inputs.
    bool dropped_controls = false;
    for (const ValueRef& r : n.inputs)
      dropped_controls |= r.node != x.node && !g.node(r.node).control_inputs.empty();
    if (dropped_controls) continue;
    for (const ValueRef& r : n.inputs)  // x * c relied on c's data: stale if c is written later
      if (g.node(r.node).kind == NodeKind::Constant) {
        const Tensor& c = g.node(r.node).value;
        g.read_constants.emplace_back(c, c.version());
      }
    g.forward({id, 0}, x);
    ++simplified_count;
  }
  g.apply_forwards();
  return simplified_count;
}

}  // namespace nabla::graph

#include "nabla/graph/passes/variable_writes.h"

#include <algorithm>
#include <memory>

#include "nabla/graph/passes/fuse_elementwise.h"

namespace nabla::graph {

namespace {

bool is_assign(NodeKind k) { return k == NodeKind::Assign || k == NodeKind::AssignAdd || k == NodeKind::AssignSub; }
bool is_control_flow(NodeKind k) { return k == NodeKind::Cond || k == NodeKind::While || k == NodeKind::WhileGrad; }

// A one-step chain for a single elementwise op node.
std::shared_ptr<FusedChain> chain_of_op(const Node& node) {
  auto c = std::make_shared<FusedChain>();
  FusedChain::Step s;
  s.op = node.op;
  s.attrs = node.attrs;
  s.dtype = node.metas[0].dtype;
  s.node = describe(node);
  for (std::size_t k = 0; k < node.inputs.size(); ++k) s.args.push_back(static_cast<int>(k));
  c->steps.push_back(std::move(s));
  return c;
}

// The per-output rewrite for ops with OpDef::updates_input (see the header).
template <class MayAlias, class IsReadOf, class Untouched>
void plan_updating_ops(const OptGraph& g, const std::vector<ValueRef>& fetches, MayAlias may_alias,
                       IsReadOf is_read_of, Untouched untouched_between, VariableWrites& w) {
  const int n = g.size();
  // Per value: how many inputs read it, fetches counted, and its last reader.
  std::vector<std::vector<int>> uses(static_cast<std::size_t>(n)), reader(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    uses[static_cast<std::size_t>(i)].assign(g.node(i).metas.size(), 0);
    reader[static_cast<std::size_t>(i)].assign(g.node(i).metas.size(), -1);
  }
  // (Group inputs and fetches may name nodes without a value: not counted.)
  auto has_value = [&](const ValueRef& r) {
    return static_cast<std::size_t>(r.output) < uses[static_cast<std::size_t>(r.node)].size();
  };
  for (int i = 0; i < n; ++i)
    for (const ValueRef& r : g.node(i).inputs) {
      if (!has_value(r)) continue;
      ++uses[static_cast<std::size_t>(r.node)][static_cast<std::size_t>(r.output)];
      reader[static_cast<std::size_t>(r.node)][static_cast<std::size_t>(r.output)] = i;
    }
  for (const ValueRef& f : fetches)
    if (has_value(f)) ++uses[static_cast<std::size_t>(f.node)][static_cast<std::size_t>(f.output)];
  for (int p = 0; p < n; ++p) {
    const Node& op = g.node(p);
    if (op.kind != NodeKind::Op || op.fused || !op.control_inputs.empty() || op.metas.size() > 4) continue;
    std::vector<int> into(op.metas.size(), -1);
    bool any = false;
    for (std::size_t o = 0; o < op.metas.size(); ++o) {
      const int j = op.op->updates_input[o];
      if (j < 0 || static_cast<std::size_t>(j) >= op.inputs.size()) continue;
      const int a = reader[static_cast<std::size_t>(p)][o];
      if (uses[static_cast<std::size_t>(p)][o] != 1 || a < 0) continue;
      const Node& assign = g.node(a);
      if (assign.kind != NodeKind::Assign || assign.inputs.size() != 1 || !assign.control_inputs.empty()) continue;
      const int var = assign.target;
      const ValueRef read = op.inputs[static_cast<std::size_t>(j)];
      if (!is_read_of(read, var)) continue;
      const OutputMeta& rm = g.node(read.node).metas[static_cast<std::size_t>(read.output)];
      if (!(rm.sizes == op.metas[o].sizes) || rm.dtype != op.metas[o].dtype) continue;
      // The op's other inputs must not see the variable, and nothing between
      // the op and the assign.
      bool safe = true;
      for (std::size_t k = 0; k < op.inputs.size(); ++k)
        if (static_cast<int>(k) != j && may_alias(op.inputs[k], var)) safe = false;
      if (!safe || !untouched_between(p, a, var)) continue;
      into[o] = j;
      w.written[static_cast<std::size_t>(a)] = 1;
      any = true;
    }
    if (any) w.outputs_into_inputs[static_cast<std::size_t>(p)] = std::move(into);
  }
}

}  // namespace

VariableWrites plan_variable_writes(OptGraph& g, const std::vector<ValueRef>& fetches) {
  const int n = g.size();
  VariableWrites w;
  w.into_input.assign(static_cast<std::size_t>(n), -1);
  w.written.assign(static_cast<std::size_t>(n), 0);
  w.outputs_into_inputs.assign(static_cast<std::size_t>(n), {});
  for (int i = 0; i < n; ++i) {
    NodeKind k = g.node(i).kind;
    if (k == NodeKind::Initializer || is_control_flow(k)) return w;
  }
  // Per value: the variables (user ids) it may alias. A Variable read and an
  // assign are their variable; an op's result may be a view of its inputs.
  std::vector<std::vector<std::vector<int>>> aliases(static_cast<std::size_t>(n));
  std::vector<int> uses(static_cast<std::size_t>(n), 0);  // data and control uses
  for (int i = 0; i < n; ++i) {
    const Node& node = g.node(i);
    for (int c : node.control_inputs) ++uses[static_cast<std::size_t>(c)];
    auto& out = aliases[static_cast<std::size_t>(i)];
    out.resize(node.metas.size());
    for (const ValueRef& r : node.inputs) ++uses[static_cast<std::size_t>(r.node)];
    for (std::size_t o = 0; o < node.metas.size(); ++o) {
      if (node.kind == NodeKind::Variable) out[o] = {g.origin[static_cast<std::size_t>(i)]};
      if (is_assign(node.kind)) out[o] = {node.target};
      // Op results are new buffers, except views and what composites return.
      if (node.kind != NodeKind::Op || !(node.op->has(kView) || node.op->name == "view" || node.op->composite))
        continue;
      for (const ValueRef& r : node.inputs)
        for (int v : aliases[static_cast<std::size_t>(r.node)][static_cast<std::size_t>(r.output)])
          if (std::find(out[o].begin(), out[o].end(), v) == out[o].end()) out[o].push_back(v);
    }
  }
  auto may_alias = [&](const ValueRef& r, int var) {
    const auto& a = aliases[static_cast<std::size_t>(r.node)][static_cast<std::size_t>(r.output)];
    return std::find(a.begin(), a.end(), var) != a.end();
  };
  auto is_read_of = [&](const ValueRef& r, int var) {
    return g.node(r.node).kind == NodeKind::Variable && g.origin[static_cast<std::size_t>(r.node)] == var;
  };
  // Nothing between the producer p and the assign a may see or change var.
  auto untouched_between = [&](int p, int a, int var) {
    for (int i = p + 1; i < a; ++i) {
      const Node& between = g.node(i);
      if (is_assign(between.kind) && between.target == var) return false;
      for (const ValueRef& r : between.inputs)
        if (may_alias(r, var)) return false;
    }
    return true;
  };

  for (int a = 0; a < n; ++a) {
    const Node& assign = g.node(a);
    if (!is_assign(assign.kind) || assign.inputs.size() != 1) continue;
    const int var = assign.target;
    const int p = assign.inputs[0].node;
    Node& producer = g.node(p);
    if (producer.kind != NodeKind::Op || uses[static_cast<std::size_t>(p)] != 1 || producer.metas.size() != 1 ||
        !producer.control_inputs.empty() || !assign.control_inputs.empty() ||
        std::any_of(fetches.begin(), fetches.end(), [&](const ValueRef& f) { return f.node == p; }))
      continue;
    if (!producer.fused && !fusable_elementwise(g, p)) continue;
    // The variable's read to write through: one made before the chain.
    int read = -1;
    for (int i = 0; i < p && read < 0; ++i)
      if (g.node(i).kind == NodeKind::Variable && g.origin[static_cast<std::size_t>(i)] == var) read = i;
    if (read < 0 || !(g.node(read).metas[0].sizes == producer.metas[0].sizes) ||
        g.node(read).metas[0].dtype != producer.metas[0].dtype)
      continue;
    if (!untouched_between(p, a, var)) continue;
    std::shared_ptr<FusedChain> chain =
        producer.fused ? std::make_shared<FusedChain>(*producer.fused) : chain_of_op(producer);
    std::vector<ValueRef> inputs = producer.inputs;
    // The chain's reads of the variable: plain reads only, none by the last
    // step unless it runs in place on them.
    bool safe = true;
    for (std::size_t e = 0; e < inputs.size(); ++e) {
      if (!may_alias(inputs[e], var)) continue;
      if (!is_read_of(inputs[e], var)) safe = false;
      const FusedChain::Step& last = chain->steps.back();
      for (std::size_t k = 0; k < last.args.size(); ++k)
        if (last.args[k] == static_cast<int>(e) && (k != 0 || !last.op->has(kInplaceOk))) safe = false;
    }
    if (!safe) continue;
    auto found = std::find_if(inputs.begin(), inputs.end(), [&](const ValueRef& r) { return is_read_of(r, var); });
    const int var_input = static_cast<int>(found - inputs.begin());
    if (found == inputs.end()) inputs.push_back(ValueRef{read, 0});
    if (assign.kind != NodeKind::Assign) {
      const OpDef* op = find_op(assign.kind == NodeKind::AssignAdd ? "add" : "sub");
      FusedChain::Step s;
      s.op = op;
      s.dtype = producer.metas[0].dtype;
      s.node = describe(assign);
      s.args = {var_input, -static_cast<int>(chain->steps.size())};
      chain->steps.push_back(std::move(s));
    }
    producer.fused = chain;
    producer.op = &fused_elementwise_op();
    producer.attrs = Attrs();
    producer.inputs = inputs;
    w.into_input[static_cast<std::size_t>(p)] = var_input;
    w.written[static_cast<std::size_t>(a)] = 1;
  }
  plan_updating_ops(g, fetches, may_alias, is_read_of, untouched_between, w);
  return w;
}

}  // namespace nabla::graph

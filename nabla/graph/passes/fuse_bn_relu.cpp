#include "nabla/graph/passes/fuse_bn_relu.h"

namespace nabla::graph {

namespace {

bool plain_op(const Node& n, std::string_view name, std::size_t outputs) {
  if (!is_plain_op(n, name, outputs)) return false;
  const DType dt = n.metas[0].dtype;
  return dt == kFloat32 || dt == kFloat64 || dt == kBFloat16;
}

const OutputMeta& meta_of(const OptGraph& g, ValueRef r) {
  return g.node(r.node).metas[static_cast<std::size_t>(r.output)];
}

const OpDef& op_named(const char* name) {
  const OpDef* op = find_op(name);
  NABLA_CHECK(op, "graph::fuse_batch_norm_relu: ", name, " is not in the op table");
  return *op;
}

// How many inputs and fetches read output `r` (not whole-node control inputs).
std::vector<std::vector<int>> value_uses(const OptGraph& g, const std::vector<ValueRef>& fetches) {
  std::vector<std::vector<int>> uses(static_cast<std::size_t>(g.size()));
  auto add = [&](ValueRef r) {
    if (r.node < 0) return;
    std::vector<int>& u = uses[static_cast<std::size_t>(r.node)];
    if (u.size() <= static_cast<std::size_t>(r.output)) u.resize(static_cast<std::size_t>(r.output) + 1, 0);
    ++u[static_cast<std::size_t>(r.output)];
  };
  for (const Node& node : g.graph.nodes)
    for (const ValueRef& r : node.inputs) add(r);
  for (const ValueRef& f : fetches) add(f);
  return uses;
}

int fuse_forward(OptGraph& g, std::vector<ValueRef>& fetches) {
  const OpDef& fused = op_named("native_batch_norm_relu");
  const auto uses = value_uses(g, fetches);
  int rewritten = 0;
  for (int r = 0; r < g.size(); ++r) {
    const Node& relu = g.node(r);
    if (!plain_op(relu, "relu", 1) || relu.inputs.size() != 1) continue;
    const ValueRef y = relu.inputs[0];
    Node& bn = g.node(y.node);
    if (y.output != 0 || !plain_op(bn, "native_batch_norm", 3) || uses[static_cast<std::size_t>(y.node)].at(0) != 1 ||
        bn.metas[0].dtype != relu.metas[0].dtype)
      continue;
    bn.op = &fused;
    // Output 0 is relu's value now: no user value is the pre-ReLU one any more.
    for (auto& values : g.source_values)
      for (ValueRef& v : values)
        if (v == y) v = {-1, 0};
    g.forward({r, 0}, y);
    ++rewritten;
  }
  for (ValueRef& f : fetches) f = g.resolve(f);
  g.apply_forwards();
  return rewritten;
}

int fuse_backward(OptGraph& g, const std::vector<ValueRef>& fetches) {
  const OpDef& fused = op_named("native_batch_norm_relu_backward");
  const std::vector<int> uses = use_counts(g, fetches);
  int rewritten = 0;
  for (int b = 0; b < g.size(); ++b) {
    Node& bnb = g.node(b);
    if (!plain_op(bnb, "native_batch_norm_backward", 3) || bnb.inputs.size() < 4 || bnb.inputs[0].output != 0)
      continue;
    const int t = bnb.inputs[0].node;
    const Node& mask = g.node(t);
    if (!plain_op(mask, "threshold_backward", 1) || mask.inputs.size() != 2 || mask.attrs.f(0) != 0.0 ||
        uses[static_cast<std::size_t>(t)] != 1)
      continue;
    const ValueRef grad = mask.inputs[0], y = mask.inputs[1];
    const DType dt = bnb.metas[0].dtype;
    const Shape& sizes = bnb.metas[0].sizes;
    if (mask.metas[0].dtype != dt || meta_of(g, grad).dtype != dt || meta_of(g, y).dtype != dt ||
        meta_of(g, grad).sizes != sizes || meta_of(g, y).sizes != sizes)
      continue;
    bool assign_between = false;
    for (int k = t + 1; k < b && !assign_between; ++k) assign_between = changes_state(g.node(k).kind);
    if (assign_between) continue;
    std::vector<ValueRef> inputs{grad, bnb.inputs[1], bnb.inputs[2], bnb.inputs[3], y};
    if (bnb.inputs.size() == 5) inputs.push_back(bnb.inputs[4]);
    bnb.op = &fused;
    bnb.inputs = std::move(inputs);
    ++rewritten;
  }
  return rewritten;
}

}  // namespace

int fuse_batch_norm_relu(OptGraph& g, std::vector<ValueRef>& fetches) {
  return fuse_forward(g, fetches) + fuse_backward(g, fetches);
}

}  // namespace nabla::graph

#include "nabla/graph/passes/pool_grad_mask.h"

#include <utility>

namespace nabla::graph {

namespace {

bool plain_op(const Node& n, std::string_view name, std::size_t outputs) {
  return is_plain_op(n, name, outputs) && (n.metas[0].dtype == kFloat32 || n.metas[0].dtype == kFloat64);
}

}  // namespace

int mask_before_max_pool_backward(OptGraph& g, const std::vector<ValueRef>& fetches) {
  const int n = g.size();
  const std::vector<int> uses = use_counts(g, fetches);
  int rewritten = 0;
  for (int t = 0; t < n; ++t) {
    Node& mask = g.node(t);
    if (!plain_op(mask, "threshold_backward", 1) || mask.inputs.size() != 2 || mask.inputs[0].output != 0) continue;
    const int m = mask.inputs[0].node;
    Node& scatter = g.node(m);
    if (!plain_op(scatter, "max_pool2d_backward", 1) || scatter.inputs.size() != 2 ||
        uses[static_cast<std::size_t>(m)] != 1)
      continue;
    const ValueRef grad = scatter.inputs[0], idx = scatter.inputs[1];
    const Node& pool = g.node(idx.node);
    if (idx.output != 1 || !plain_op(pool, "max_pool2d", 2) || pool.inputs.size() != 1) continue;
    // The mask must read the very value pooled (not an equal one elsewhere).
    if (mask.inputs[1] != pool.inputs[0]) continue;
    const DType dt = mask.metas[0].dtype;
    const OutputMeta& gm = g.node(grad.node).metas[static_cast<std::size_t>(grad.output)];
    if (scatter.metas[0].dtype != dt || pool.metas[0].dtype != dt || gm.dtype != dt ||
        gm.sizes != pool.metas[0].sizes || scatter.metas[0].sizes != mask.metas[0].sizes)
      continue;
    // The scatter node becomes the mask on the pooled map (it comes after the
    // pool and after g), the mask node the scatter of it (after both).
    Attrs mask_attrs = mask.attrs, scatter_attrs = scatter.attrs;
    const OpDef* mask_op = mask.op;
    mask.op = scatter.op;
    mask.attrs = std::move(scatter_attrs);
    mask.inputs = {{m, 0}, idx};
    scatter.op = mask_op;
    scatter.attrs = std::move(mask_attrs);
    scatter.inputs = {grad, {idx.node, 0}};
    scatter.metas = {{gm.sizes, dt}};
    g.origin[static_cast<std::size_t>(m)] = -1;  // no user value computes this any more
    for (auto& values : g.source_values)
      for (ValueRef& v : values)
        if (v.node == m) v = {-1, 0};
    std::swap(scatter.name, mask.name);  // so printed plans read "threshold_backward = threshold_backward(...)"
    ++rewritten;
  }
  return rewritten;
}

}  // namespace nabla::graph

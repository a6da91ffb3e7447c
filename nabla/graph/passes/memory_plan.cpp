// Liveness over the run order (node id order): a value's last use is the
// highest id among its consumers.
#include "nabla/graph/passes/memory_plan.h"

#include <algorithm>

namespace nabla::graph {

namespace {

bool fetched(const std::vector<ValueRef>& fetches, ValueRef r) {
  return std::any_of(fetches.begin(), fetches.end(),
                     [&](const ValueRef& f) { return f.node == r.node && f.output == r.output; });
}

}  // namespace

MemoryPlan plan_memory(const GraphData& g, const std::vector<ValueRef>& fetches) {
  const std::size_t n = g.nodes.size();
  std::vector<std::vector<int>> last_use(n);  // per node, per output: last consumer (-1: none)
  for (std::size_t i = 0; i < n; ++i) last_use[i].assign(g.nodes[i].metas.size(), -1);
  for (std::size_t i = 0; i < n; ++i)
    for (const ValueRef& r : g.nodes[i].inputs)
      last_use[static_cast<std::size_t>(r.node)][static_cast<std::size_t>(r.output)] = static_cast<int>(i);

  MemoryPlan plan;
  plan.release_after.resize(n);
  plan.inplace.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t o = 0; o < last_use[i].size(); ++o) {
      ValueRef r{static_cast<int>(i), static_cast<int>(o)};
      if (fetched(fetches, r)) continue;
      int at = last_use[i][o] < 0 ? static_cast<int>(i) : last_use[i][o];
      plan.release_after[static_cast<std::size_t>(at)].push_back(r);
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    const Node& node = g.nodes[i];
    if (node.kind != NodeKind::Op || node.fused || !node.op->has(kInplaceOk) || !node.op->has(kElementwise) ||
        node.op->has(kView) || node.metas.size() != 1 || node.inputs.empty())
      continue;
    const ValueRef in0 = node.inputs[0];
    const Node& producer = g.nodes[static_cast<std::size_t>(in0.node)];
    if (producer.kind != NodeKind::Op || (!producer.fused && (producer.op->has(kView) || producer.op->name == "view")))
      continue;
    const OutputMeta& im = producer.metas[static_cast<std::size_t>(in0.output)];
    if (im.dtype != node.metas[0].dtype || !(im.sizes == node.metas[0].sizes) || is_reduced_float(im.dtype)) continue;
    if (last_use[static_cast<std::size_t>(in0.node)][static_cast<std::size_t>(in0.output)] != static_cast<int>(i) ||
        fetched(fetches, in0))
      continue;
    int uses_here = 0;
    for (const ValueRef& r : node.inputs) uses_here += r.node == in0.node && r.output == in0.output;
    if (uses_here != 1) continue;
    plan.inplace[i] = 1;
  }
  return plan;
}

}  // namespace nabla::graph

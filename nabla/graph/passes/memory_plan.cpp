// Liveness over the run order (node id order): a value's last use is the
// highest id among its consumers. Buffers: a slotted value owns a buffer; any
// other value may share the buffers of its inputs (a view, a composite that
// returns its input), so a buffer lives until the last use of every value
// that may share it.
#include "nabla/graph/passes/memory_plan.h"

#include <algorithm>
#include <limits>

namespace nabla::graph {

namespace {

bool fetched(const std::vector<ValueRef>& fetches, ValueRef r) {
  return std::any_of(fetches.begin(), fetches.end(),
                     [&](const ValueRef& f) { return f.node == r.node && f.output == r.output; });
}

constexpr int kNever = std::numeric_limits<int>::max();  // a fetched value's buffer lives past the run

}  // namespace

MemoryPlan plan_memory(const GraphData& g, const std::vector<ValueRef>& fetches,
                       const std::vector<char>& writes_into_slots) {
  const std::size_t n = g.nodes.size();
  auto slotted = [&](std::size_t i) { return i < writes_into_slots.size() && writes_into_slots[i]; };
  std::vector<std::vector<int>> last_use(n);  // per node, per output: last consumer (-1: none)
  for (std::size_t i = 0; i < n; ++i) last_use[i].assign(g.nodes[i].metas.size(), -1);
  for (std::size_t i = 0; i < n; ++i)
    for (const ValueRef& r : g.nodes[i].inputs)
      last_use[static_cast<std::size_t>(r.node)][static_cast<std::size_t>(r.output)] = static_cast<int>(i);
  auto death = [&](ValueRef r) {  // after which node the value is dead
    if (fetched(fetches, r)) return kNever;
    int at = last_use[static_cast<std::size_t>(r.node)][static_cast<std::size_t>(r.output)];
    return at < 0 ? r.node : at;
  };

  MemoryPlan plan;
  plan.release_after.resize(n);
  plan.inplace.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t o = 0; o < last_use[i].size(); ++o) {
      ValueRef r{static_cast<int>(i), static_cast<int>(o)};
      if (!fetched(fetches, r)) plan.release_after[static_cast<std::size_t>(death(r))].push_back(r);
    }
  }

  // Buffers: one per output of a slotted node (ids in `buffer`), shared by
  // the values that may alias it; buffer_death: when the last of them dies.
  std::vector<std::vector<int>> buffer(n);           // per node, per output: its own buffer (-1: none)
  std::vector<std::vector<std::vector<int>>> shares(n);  // per node, per output: buffers it may share
  std::vector<int> buffer_death;
  for (std::size_t i = 0; i < n; ++i) {
    const Node& node = g.nodes[i];
    buffer[i].assign(node.metas.size(), -1);
    shares[i].resize(node.metas.size());
    const bool aliases_inputs = node.kind == NodeKind::Op || node.kind == NodeKind::Cond ||
                                node.kind == NodeKind::While || node.kind == NodeKind::WhileGrad;
    for (std::size_t o = 0; o < node.metas.size(); ++o) {
      if (slotted(i)) {
        buffer[i][o] = static_cast<int>(buffer_death.size());
        buffer_death.push_back(-1);
        shares[i][o] = {buffer[i][o]};
      } else if (aliases_inputs) {
        for (const ValueRef& r : node.inputs)
          for (int b : shares[static_cast<std::size_t>(r.node)][static_cast<std::size_t>(r.output)])
            if (std::find(shares[i][o].begin(), shares[i][o].end(), b) == shares[i][o].end())
              shares[i][o].push_back(b);
      }
      for (int b : shares[i][o])
        buffer_death[static_cast<std::size_t>(b)] =
            std::max(buffer_death[static_cast<std::size_t>(b)], death({static_cast<int>(i), static_cast<int>(o)}));
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
    // With slots, the buffer must die here too: no view of it is used later.
    if (slotted(i)) {
      const int b = buffer[static_cast<std::size_t>(in0.node)][static_cast<std::size_t>(in0.output)];
      if (b < 0 || buffer_death[static_cast<std::size_t>(b)] != static_cast<int>(i)) continue;
    }
    plan.inplace[i] = 1;
  }

  // Slots: walk the run order handing out free slots of the same meta;
  // a slot is free again after its buffer's death.
  plan.slot.resize(n);
  std::vector<std::vector<int>> frees_after(n);  // slots free once node i has run
  std::vector<int> free_slots;
  for (std::size_t i = 0; i < n; ++i) {
    const Node& node = g.nodes[i];
    plan.slot[i].assign(node.metas.size(), -1);
    for (std::size_t o = 0; o < node.metas.size(); ++o) {
      const int b = buffer[i][o];
      if (b < 0) continue;
      int s = -1;
      if (plan.inplace[i] && o == 0) {
        // The output takes over input 0's slot, which its buffer's death here would have freed.
        const ValueRef in0 = node.inputs[0];
        s = plan.slot[static_cast<std::size_t>(in0.node)][static_cast<std::size_t>(in0.output)];
        auto& frees = frees_after[i];
        if (auto it = std::find(frees.begin(), frees.end(), s); it != frees.end()) frees.erase(it);
      }
      if (s < 0) {
        auto it = std::find_if(free_slots.begin(), free_slots.end(), [&](int f) {
          const OutputMeta& m = plan.slot_metas[static_cast<std::size_t>(f)];
          return m.dtype == node.metas[o].dtype && m.sizes == node.metas[o].sizes;
        });
        if (it != free_slots.end()) {
          s = *it;
          free_slots.erase(it);
        } else {
          s = static_cast<int>(plan.slot_metas.size());
          plan.slot_metas.push_back(node.metas[o]);
        }
      }
      plan.slot[i][o] = s;
      const int d = buffer_death[static_cast<std::size_t>(b)];
      if (d != kNever) frees_after[static_cast<std::size_t>(std::max(d, static_cast<int>(i)))].push_back(s);
    }
    for (int s : frees_after[i])
      if (std::find(free_slots.begin(), free_slots.end(), s) == free_slots.end()) free_slots.push_back(s);
  }
  return plan;
}

}  // namespace nabla::graph

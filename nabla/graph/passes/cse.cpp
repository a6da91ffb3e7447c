// CSE in one forward sweep: inputs are resolved through the merges made so
// far, so chains of duplicates collapse (a+b twice, then relu of each).
#include "nabla/graph/passes/cse.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "nabla/core/grad_mode.h"
#include "nabla/graph/passes/attrs_equal.h"

namespace nabla::graph {

namespace {

struct Key {
  const OpDef* op;
  std::vector<ValueRef> inputs;
  std::vector<int> control;
  std::vector<int> state_versions;  // per input: assigns to its variable so far (-1: not state)
};

std::size_t hash_of(const Key& k) {
  std::size_t h = std::hash<const void*>()(k.op);
  auto mix = [&](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  for (const ValueRef& r : k.inputs) mix(static_cast<std::size_t>(r.node) * 31 + static_cast<std::size_t>(r.output));
  for (int c : k.control) mix(static_cast<std::size_t>(c));
  for (int v : k.state_versions) mix(static_cast<std::size_t>(v + 1));
  return h;
}

bool same(const Key& a, const Key& b) {
  if (a.op != b.op || a.inputs.size() != b.inputs.size() || a.control != b.control ||
      a.state_versions != b.state_versions)
    return false;
  for (std::size_t i = 0; i < a.inputs.size(); ++i)
    if (a.inputs[i].node != b.inputs[i].node || a.inputs[i].output != b.inputs[i].output) return false;
  return true;
}

// Small constants (x * 2.0 makes one per use) merge when dtype, shape and
// every element are equal; the merge relies on their data, so they are
// recorded as read (a later in-place change makes the Session optimize again).
using ConstantKey = std::vector<double>;  // dtype, rank, sizes, then the elements as float64

bool merge_small_constant(OptGraph& g, int id, std::map<ConstantKey, int>& kept) {
  const Node& n = g.node(id);
  if (!n.value.defined() || n.value.numel() > kMaxMergedConstantElements || !n.control_inputs.empty()) return false;
  NoGradGuard no_grad;
  ConstantKey key{static_cast<double>(static_cast<int>(n.value.dtype())), static_cast<double>(n.value.dim())};
  for (int64_t d : n.value.sizes()) key.push_back(static_cast<double>(d));
  for (double v : n.value.to(kFloat64).to_vector<double>()) {
    if (v != v) return false;  // NaN never equals: keep it apart
    key.push_back(v);
  }
  auto [it, inserted] = kept.emplace(std::move(key), id);
  if (inserted) return false;
  const int other = it->second;
  const Tensor& ov = g.node(other).value;
  g.read_constants.emplace_back(n.value, n.value.version());
  g.read_constants.emplace_back(ov, ov.version());
  g.forward({id, 0}, {other, 0});
  for (Node& later : g.graph.nodes)
    for (int& c : later.control_inputs)
      if (c == id) c = other;
  return true;
}

}  // namespace

int eliminate_common_subexpressions(OptGraph& g) {
  std::unordered_map<int, int> assigns_so_far;  // user variable id -> assigns to it before the current node
  std::unordered_multimap<std::size_t, int> seen;  // key hash -> node id
  std::vector<Key> keys(static_cast<std::size_t>(g.size()));
  std::map<ConstantKey, int> constants;  // small constants kept so far, by dtype, shape and data
  int merged = 0;
  for (int id = 0; id < g.size(); ++id) {
    Node& n = g.node(id);
    for (ValueRef& r : n.inputs) r = g.resolve(r);
    if (n.kind == NodeKind::Assign || n.kind == NodeKind::AssignAdd || n.kind == NodeKind::AssignSub) {
      ++assigns_so_far[n.target];
      continue;
    }
    if (n.kind == NodeKind::Effect) {  // an optimizer step: its variables change like assigned ones
      for (int v : n.mutates) ++assigns_so_far[v];
      continue;
    }
    if (n.kind == NodeKind::Constant) {
      merged += merge_small_constant(g, id, constants) ? 1 : 0;
      continue;
    }
    if (n.kind != NodeKind::Op || n.fused || n.op->has(kRandom)) continue;
    Key& k = keys[static_cast<std::size_t>(id)];
    k.op = n.op;
    k.inputs = n.inputs;
    k.control = n.control_inputs;
    std::sort(k.control.begin(), k.control.end());
    k.control.erase(std::unique(k.control.begin(), k.control.end()), k.control.end());
    for (const ValueRef& r : n.inputs) {
      const Node& p = g.node(r.node);
      int var = p.kind == NodeKind::Variable ? g.origin[static_cast<std::size_t>(r.node)]
                : (p.kind == NodeKind::Assign || p.kind == NodeKind::AssignAdd || p.kind == NodeKind::AssignSub)
                    ? p.target
                    : -1;
      k.state_versions.push_back(var < 0 ? -1 : assigns_so_far[var]);
    }
    std::size_t h = hash_of(k);
    int match = -1;
    for (auto [it, end] = seen.equal_range(h); it != end; ++it) {
      const Node& other = g.node(it->second);
      if (same(keys[static_cast<std::size_t>(it->second)], k) && attrs_equal(other.attrs, n.attrs)) {
        match = it->second;
        break;
      }
    }
    if (match < 0) {
      seen.emplace(h, id);
      continue;
    }
    for (std::size_t o = 0; o < n.metas.size(); ++o)
      g.forward({id, static_cast<int>(o)}, {match, static_cast<int>(o)});
    // A node that waited on the duplicate (control input) now waits on the survivor.
    for (Node& later : g.graph.nodes)
      for (int& c : later.control_inputs)
        if (c == id) c = match;
    ++merged;
  }
  g.apply_forwards();
  return merged;
}

}  // namespace nabla::graph

// Both passes are compact() with different roots.
#include "nabla/graph/passes/dead_code.h"

namespace nabla::graph {

void eliminate_dead_code(OptGraph& g) {
  g.apply_forwards();
  std::vector<int> roots;
  for (const auto& outs : g.source_values)
    for (const ValueRef& r : outs)
      if (r.node >= 0) roots.push_back(r.node);
  compact(g, roots);
}

void prune_to_fetches(OptGraph& g, std::vector<ValueRef>& fetches) {
  g.apply_forwards();
  // Track the fetches through the renumbering as extra source values.
  std::size_t first = g.source_values.size();
  std::vector<int> roots;
  for (const ValueRef& f : fetches) {
    g.source_values.push_back({f});
    roots.push_back(f.node);
  }
  compact(g, roots);
  for (std::size_t i = 0; i < fetches.size(); ++i) fetches[i] = g.source_values[first + i][0];
  g.source_values.resize(first);
}

}  // namespace nabla::graph

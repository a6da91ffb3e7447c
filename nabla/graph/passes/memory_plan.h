// Memory planning for one execution plan: when each value can be released
// (right after its last consumer runs, so the caching allocator hands its
// block to the next op that asks for that size) and which op nodes may write
// their result into input 0's buffer instead of a new one.
#pragma once
#include <vector>

#include "nabla/graph/node.h"

namespace nabla::graph {

struct MemoryPlan {
  // Per node: the values (of any node) to release once it has run. Fetched
  // values are never released; a value nothing uses is released right after
  // the node that makes it.
  std::vector<std::vector<ValueRef>> release_after;
  // Per node: it may run in place on input 0 — an elementwise kInplaceOk op
  // whose input 0 has the output's dtype and shape, dies at this node, is
  // used once by it, and is made by an op (not a feed, constant, variable or
  // assign) and not fetched. The Session still checks at run time that no
  // other tensor shares that buffer (a view) before writing into it.
  std::vector<char> inplace;
};

MemoryPlan plan_memory(const GraphData& g, const std::vector<ValueRef>& fetches);

}  // namespace nabla::graph

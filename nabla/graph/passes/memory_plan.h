// Memory planning for one execution plan: when each value can be released
// (right after its last consumer runs), which op nodes may write their result
// into input 0's buffer instead of a new one, and, for nodes that write into
// buffers the Session gives them, which reusable buffer ("slot") each result
// goes to, so that a plan run again and again allocates nothing.
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
  // used once by it, is made by an op (not a feed, constant, variable or
  // assign) and not fetched, and (for a node with slots) no view of its
  // buffer outlives this node. The Session still checks at run time that no
  // other tensor shares that buffer before writing into it.
  std::vector<char> inplace;
  // Per node, per output: the slot its value is written into, or -1 (a feed,
  // a variable, a view, a result of call()). Only nodes marked in
  // `writes_into_slots` get slots. A slot is handed to a later value of the
  // same shape and dtype only once every value that may share its buffer
  // (views of it, results of call() on it) is dead; an in-place node's
  // output keeps its input 0's slot.
  std::vector<std::vector<int>> slot;
  std::vector<OutputMeta> slot_metas;  // per slot: the buffer's shape and dtype
};

// `writes_into_slots` (empty: none): per node of g, whether the Session runs
// it into buffers it provides (a directly called kernel, a fused chain).
MemoryPlan plan_memory(const GraphData& g, const std::vector<ValueRef>& fetches,
                       const std::vector<char>& writes_into_slots = {});

}  // namespace nabla::graph

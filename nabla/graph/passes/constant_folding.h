// Constant folding: an op node whose inputs are all constants is computed
// once, here, and becomes a Constant node holding the result. Not for random
// ops (each run draws anew), multi-output ops, or results over
// kMaxFoldedBytes (folding must not blow up a graph: expand of a scalar). An
// op that fails (an index out of range) is left alone so that running it
// raises its error, naming the node, as without optimization. The constants
// read are recorded (OptGraph::read_constants): the graph keeps references to
// constants, so an in-place change of one later makes the fold stale, and the
// Session then optimizes again.
#pragma once
#include <cstdint>

#include "nabla/graph/passes/opt_graph.h"

namespace nabla::graph {

inline constexpr int64_t kMaxFoldedBytes = 16 << 20;

// Returns the number of nodes folded. Run eliminate_dead_code() after.
int fold_constants(OptGraph& g);

}  // namespace nabla::graph

// Common-subexpression elimination: an op node with the same op, attributes,
// inputs and control inputs as an earlier one is replaced by it. Never for
// random ops (kRandom: each draw differs) or nodes with effects or state
// (assigns, initializers, variables, placeholders, constants), and never
// across an assign: two reads of a variable (or of an assign's result)
// separated by an assign to it compute different values. Small constants
// (up to kMaxMergedConstantElements) with equal dtype, shape and data merge
// too, so that x * 2.0 written twice is one node.
#pragma once
#include "nabla/graph/passes/opt_graph.h"

namespace nabla::graph {

inline constexpr int64_t kMaxMergedConstantElements = 64;

// Returns the number of nodes merged. Run eliminate_dead_code() after.
int eliminate_common_subexpressions(OptGraph& g);

}  // namespace nabla::graph

// Algebraic simplification: x*1, 1*x, x+0, 0+x, x-0, x/1, neg(neg(x)),
// permute of permute back to the original order, view/reshape/expand to the
// same shape, cast to the same dtype — each replaced by x, but only where the
// result has x's dtype and shape (x + zeros([3, 4]) broadcasts x: kept), the
// node has no control inputs, and x cannot alias a variable (x * 1 of a
// variable must stay a snapshot when an assign follows in the same run).
#pragma once
#include "nabla/graph/passes/opt_graph.h"

namespace nabla::graph {

// Returns the number of nodes simplified away. Run eliminate_dead_code() after.
int simplify_algebra(OptGraph& g);

}  // namespace nabla::graph

// Convolution blocks fused into one op: relu(conv2d(x, w, b)) becomes
// conv2d_relu(x, w, b), one oneDNN primitive with a ReLU post-op (the
// convolution's output is never written out and read back). The gradient is
// unchanged: conv2d_relu's rule takes ReLU's mask from its output, which is
// the relu node's value that the gradient nodes already read.
//
// Per plan, on the CPU: the conv2d's value must be used only by the relu (not
// fetched, not a control input), both nodes plain float32/float64 ops, and no
// assign may lie between them (the fused node reads the weight where the
// relu was).
#pragma once
#include <vector>

#include "nabla/graph/passes/opt_graph.h"

namespace nabla::graph {

// Rewrites each such relu node into conv2d_relu in place (the conv2d node is
// left without uses: run prune_to_fetches() after). Returns how many.
int fuse_conv_relu(OptGraph& g, const std::vector<ValueRef>& fetches);

}  // namespace nabla::graph

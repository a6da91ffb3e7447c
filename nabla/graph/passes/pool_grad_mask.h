// ReLU's gradient masked before max pooling's gradient scatters it, on the
// pooled map instead of the full one:
//   threshold_backward(max_pool2d_backward(g, idx), r)
// where idx is output 1 of max_pool2d(r) (the same r) runs as
//   max_pool2d_backward(threshold_backward(g, pooled), idx)
// with pooled = output 0 of that max_pool2d. It is what a CNN's backward has
// at every conv -> relu -> max_pool block (relu's gradient reads its output,
// which the pool read), and the mask then runs on 4x fewer elements for a
// 2x2 pool.
//
// Exact, bit for bit: every gradient lands on its window's argmax p, and
// r[p] is pooled's value of that window (copied, so the same bits; a NaN
// wins its window with its index, so pooled is NaN exactly where r[p] is).
// threshold_backward keeps a gradient where !(x <= threshold), a function of
// p alone, so masking each window's gradient before the scatter sums the
// same terms in the same order as masking the summed one after (overlapping
// windows too); positions no window picked get 0 either way. A window with no
// element (index -1) adds nothing either way.
//
// Per plan: max_pool2d_backward's value used only by the threshold_backward
// (not fetched, not a control input), the threshold_backward's second operand
// the very value the max_pool2d pooled, all of one float dtype.
#pragma once
#include <vector>

#include "nabla/graph/passes/opt_graph.h"

namespace nabla::graph {

// Rewrites every such pair in place (the max_pool2d_backward node becomes the
// threshold_backward on the pooled map, the threshold_backward node the
// max_pool2d_backward of it); returns how many.
int mask_before_max_pool_backward(OptGraph& g, const std::vector<ValueRef>& fetches);

}  // namespace nabla::graph

// Building graphs whose placeholders have unknown dims (-1). An op on such a
// value becomes one node, unexpanded (specialize.h says why); its output
// shape comes from calling the op twice on stand-in values, with every
// unknown dim of its inputs taken as 1009 and then as 1013: a result dim that
// differs between the two is unknown (-1), one that does not is known. The
// op's own checks run on the stand-ins, so most bad shapes are still caught
// at build time, as in eager mode.
#pragma once
#include <memory>
#include <source_location>
#include <vector>

#include "nabla/graph/node.h"

namespace nabla::graph::detail {

// The result metas of `op` on `inputs` (some with unknown dims).
OutputMetas infer_with_stand_ins(const OpDef& op, Inputs inputs, const Attrs& attrs);

// gradients() in graph `g`, which has unknown dims: one Gradients node whose
// outputs are the gradients (undefined where an x gets none, which is found
// out by differentiating a replay of the graph with stand-in sizes).
std::vector<Tensor> deferred_gradients(const std::shared_ptr<GraphData>& g, const std::vector<Tensor>& ys,
                                       const std::vector<Tensor>& xs, const std::vector<Tensor>& grad_ys,
                                       std::source_location loc);

}  // namespace nabla::graph::detail

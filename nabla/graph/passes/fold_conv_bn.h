// Batch norm in eval mode folded into the convolution before it (what
// torch.nn.utils.fusion.fuse_conv_bn_eval does to a module, and inference
// compilers to a graph):
//   channel_affine(conv2d(x, w, b), mean, scale, shift)
// runs as conv2d(x, w', b') with, per output channel c,
//   w'[c] = w[c] * scale[c]
//   b'[c] = (b[c] - mean[c]) * scale[c] + shift[c]      (b = 0 without a bias)
// (scale = weight / sqrt(running_var + eps), shift = bias: what batch_norm's
// eval mode hands to channel_affine). w' and b' are nodes of the plan computed
// from the variables at every run, so the fold stays right when the weights
// or running statistics change between runs; they cost [C]-sized and
// weight-sized ops, not a pass over the activations.
//
// Only eval mode: batch norm in training mode is native_batch_norm (the
// batch's statistics), which this pass never touches. Only inference plans:
// a plan with an assign or an effect node (a training step, even one with
// frozen batch norm layers) is left alone, since compiled training steps give
// eager's values bit for bit and folding rounds differently. Gradients
// fetched without an update stay right: the rewrite replaces a forward value
// by an equal one and leaves every other node as it was, so gradient nodes
// keep reading what they read; when a gradient needs the convolution's own
// value (channel_affine's gradient for its scale, a batch norm weight that
// trains) that value has a second use and the pass does not fire.
//
// w' costs a pass over the weight at every run where the fold saves one over
// the convolution's output, so only convolutions whose output has at least as
// many elements as their weight are folded (the early layers of a CNN, large
// batches; nn::fuse_for_inference folds once, with no cost per run).
//
// Per plan, on the CPU: the conv2d's value used only as channel_affine's
// input (not fetched, not a control input), both plain float32/float64 ops
// whose inputs all have that dtype. Run it before
// fuse_conv_relu, so conv -> batch norm -> relu ends as one conv2d_relu.
// Equal to the unfolded graph up to rounding, for finite values (as any
// folding: a zero weight times an infinite scale gives NaN where the unfolded
// graph gives an infinity).
#pragma once
#include <vector>

#include "nabla/graph/passes/opt_graph.h"

namespace nabla::graph {

// Rewrites each such channel_affine node into the folded conv2d, with the
// nodes computing w' and b' inserted before it (nodes are renumbered and
// `fetches` with them; the old conv2d node is left without uses: run
// prune_to_fetches() after). Returns how many.
int fold_conv_batch_norm(OptGraph& g, std::vector<ValueRef>& fetches);

}  // namespace nabla::graph

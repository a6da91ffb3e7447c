// graph::gradients: TensorFlow's tf.gradients for nabla graphs. It walks the
// graph backward from `ys` and adds gradient nodes built by the very gradient
// rules eager autograd runs (OpDef::grad, written with nabla ops): the rules
// see symbolic tensors, so each op they apply becomes a node. Gradient nodes
// are ordinary op nodes, so gradients of gradients work. See docs/graph.md.
#pragma once
#include <source_location>
#include <vector>

#include "nabla/graph/graph.h"

namespace nabla::graph {

// Symbolic d(sum of ys)/d x for each x in `xs`, as graph values of the graph
// `ys` belong to (TensorFlow semantics: the gradients of all ys are summed).
//
// - grad_ys: one gradient per y (same shape and dtype as y; concrete or a value
//   of the same graph); empty, or an undefined entry, means ones like y.
// - xs may be placeholders, variables, constants or intermediate values. For
//   an intermediate x the result is the gradient reaching x from ys (paths
//   through other xs included), not beyond it.
// - An x that no y depends on through differentiable ops, and an x of an
//   integer or bool dtype, gets an undefined Tensor (TensorFlow's None).
// - No gradient flows through ops flagged non-differentiable, integer outputs
//   (indices), or assign nodes.
// - New nodes are named under the scope "gradients/" and record `loc` as their
//   source line.
// Errors (nabla::Error naming gradients()): values that are not graph values
// or come from another graph, integer/bool ys, no-value ys or xs, grad_ys of
// the wrong count, shape or dtype.
std::vector<Tensor> gradients(const std::vector<Tensor>& ys, const std::vector<Tensor>& xs,
                              const std::vector<Tensor>& grad_ys = {},
                              std::source_location loc = std::source_location::current());

// One y: gradients(loss, {w1, w2}).
std::vector<Tensor> gradients(const Tensor& y, const std::vector<Tensor>& xs,
                              std::source_location loc = std::source_location::current());

}  // namespace nabla::graph

// graph::cond and graph::while_loop: TensorFlow's tf.cond / tf.while_loop for
// nabla graphs, the graph-mode stand-ins for an eager `if` and `for`.
//
// Each branch or loop function is called ONCE, at build time, while a
// subgraph of the graph is open: the ops it applies add their nodes to that
// subgraph (Node::subgraphs of the Cond / While node), and outer graph values
// it uses (closures) are captured as inputs of the control-flow node. At run
// time the Session runs only the branch taken, and the loop body as many
// times as the condition says. Both are differentiable by graph::gradients.
// See "Control flow" in docs/graph.md.
#pragma once
#include <cstdint>
#include <functional>
#include <source_location>
#include <vector>

#include "nabla/graph/graph.h"

namespace nabla::graph {

using BranchFn = std::function<std::vector<Tensor>()>;
using LoopCondFn = std::function<Tensor(const std::vector<Tensor>&)>;
using LoopBodyFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

// pred ? true_fn() : false_fn(), running only the branch taken.
// - pred: a scalar bool graph value, or a concrete scalar bool (then the
//   chosen function is simply called and its results returned: no node).
// - Both functions must return the same number of values with equal dtypes
//   and shapes (graph values, captured outer values or concrete tensors).
// - Values made inside a branch cannot be used outside it: use the outputs.
// - Assigns, groups and initializers cannot be made inside a branch.
std::vector<Tensor> cond(const Tensor& pred, const BranchFn& true_fn, const BranchFn& false_fn,
                         std::source_location loc = std::source_location::current());
// One value per branch.
Tensor cond(const Tensor& pred, const std::function<Tensor()>& true_fn, const std::function<Tensor()>& false_fn,
            std::source_location loc = std::source_location::current());

// vars = loop_vars; while (cond_fn(vars)) vars = body_fn(vars); returns vars.
// - cond_fn returns a scalar bool graph value; it is evaluated before each
//   run of the body (so the body may run zero times).
// - body_fn returns as many values as there are loop variables, each with the
//   dtype and shape of its loop variable.
// - maximum_iterations >= 0 stops the loop after that many body runs even if
//   cond_fn still holds (-1: no limit).
// - At least one loop variable must be a graph value; concrete ones become
//   constants of the graph.
std::vector<Tensor> while_loop(const LoopCondFn& cond_fn, const LoopBodyFn& body_fn,
                               const std::vector<Tensor>& loop_vars, int64_t maximum_iterations = -1,
                               std::source_location loc = std::source_location::current());

}  // namespace nabla::graph

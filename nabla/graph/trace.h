// graph::trace(fn, example_inputs): compile()'s tracing without the Session,
// for code that wants the graph itself (SummaryWriter::add_graph(module, x)).
#pragma once
#include <source_location>
#include <vector>

#include "nabla/graph/compile.h"
#include "nabla/graph/graph.h"

namespace nabla {
namespace graph {

// What graph::trace returns: the graph, its placeholders (one per example
// input, "input_0", ...) and the symbolic results of the function.
struct TracedGraph {
  Graph graph;
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
};

// Traces `fn` once, exactly as compile() does for a new input signature
// (placeholders shaped like `example_inputs`, parameters it closes over bound
// as variables), and returns the graph without making a Session or running
// it: for showing a model (SummaryWriter::add_graph), saving or inspecting.
// The example inputs give dtypes and shapes only; their values are not read.
TracedGraph trace(const TensorsFn& fn, const std::vector<Tensor>& example_inputs,
                  std::source_location loc = std::source_location::current());

}  // namespace graph

}  // namespace nabla

// graph::optimize: the passes a Session runs once per graph version, on a
// copy of the graph (the user's graph is never changed): constant folding,
// algebraic simplification, common-subexpression elimination and dead-code
// elimination, repeated while they find something. Every value of the
// user's graph stays computable (OptGraph::source_values), so any of them
// may still be fetched. Pruning to the fetches, fusion of elementwise chains
// and memory planning depend on the fetches: they are part of the Session's
// per-fetch execution plan (session.cpp).
#pragma once
#include <string>

#include "nabla/graph/graph.h"
#include "nabla/graph/passes/opt_graph.h"

namespace nabla::graph {

struct OptimizeOptions {
  bool fold_constants = true;
  bool simplify_algebra = true;
  bool eliminate_common_subexpressions = true;
};

struct OptimizeReport {
  int folded = 0;      // op nodes computed into constants
  int simplified = 0;  // op nodes replaced by one of their inputs
  int merged = 0;      // duplicate op nodes merged into an earlier one
  int removed = 0;     // nodes dropped in all
};

OptGraph optimize(const GraphData& g, const OptimizeOptions& options = {}, OptimizeReport* report = nullptr);
// The same passes on `g` in place (a graph specialized to fed shapes, say);
// `source_nodes`: the node count of the graph it was made from, for the report.
void optimize_in_place(OptGraph& g, int source_nodes, const OptimizeOptions& options = {},
                       OptimizeReport* report = nullptr);
inline OptGraph optimize(const Graph& g, const OptimizeOptions& options = {}, OptimizeReport* report = nullptr) {
  return optimize(*g.data(), options, report);
}

// The optimized graph as to_text() prints it (assign targets named from `user`).
std::string to_text(const OptGraph& g, const GraphData& user);

// The value of optimized graph `g` that user value `t` (a symbolic tensor of
// the user's graph) became; a clear error for a tensor of another graph.
ValueRef optimized_value(const OptGraph& g, const GraphData& user, const Tensor& t);

}  // namespace nabla::graph

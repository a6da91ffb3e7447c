// The pass pipeline. Folding first (it makes constants the simplifier and
// CSE can use), then simplification, then CSE; DCE after each round.
#include "nabla/graph/passes/optimize.h"

#include "nabla/graph/passes/algebraic.h"
#include "nabla/graph/passes/constant_folding.h"
#include "nabla/graph/passes/cse.h"
#include "nabla/graph/passes/dead_code.h"
#include "nabla/graph/print.h"

namespace nabla::graph {

OptGraph optimize(const GraphData& user, const OptimizeOptions& options, OptimizeReport* report) {
  OptGraph g = copy_of_user_graph(user);
  optimize_in_place(g, static_cast<int>(user.nodes.size()), options, report);
  return g;
}

void optimize_in_place(OptGraph& g, int source_nodes, const OptimizeOptions& options, OptimizeReport* report) {
  OptimizeReport r;
  for (int round = 0; round < 4; ++round) {
    int changed = 0;
    if (options.fold_constants) {
      int k = fold_constants(g);
      r.folded += k;
      changed += k;
    }
    if (options.simplify_algebra) {
      int k = simplify_algebra(g);
      r.simplified += k;
      changed += k;
    }
    if (options.eliminate_common_subexpressions) {
      int k = eliminate_common_subexpressions(g);
      r.merged += k;
      changed += k;
    }
    eliminate_dead_code(g);
    if (changed == 0) break;
  }
  r.removed = source_nodes - g.size();
  if (report) *report = r;
}

std::string to_text(const OptGraph& g, const GraphData& user) { return to_text(g.graph, &user); }

ValueRef optimized_value(const OptGraph& g, const GraphData& user, const Tensor& t) {
  Value* v = value_of(t);
  NABLA_CHECK(v && v->graph.get() == &user, "graph::optimized_value: expected a symbolic tensor of the optimized graph's user graph");
  NABLA_CHECK(static_cast<std::size_t>(v->ref.node) < g.source_values.size(), "graph::optimized_value: node '",
              user.nodes[static_cast<std::size_t>(v->ref.node)].name,
              "' was added after the graph was optimized; optimize again");
  return g.source_values[static_cast<std::size_t>(v->ref.node)][static_cast<std::size_t>(v->ref.output)];
}

}  // namespace nabla::graph

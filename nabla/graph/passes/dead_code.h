// Dead-code elimination and pruning.
#pragma once
#include <vector>

#include "nabla/graph/passes/opt_graph.h"

namespace nabla::graph {

// Drops the nodes no source value maps to and nothing else needs (what other
// passes left behind: merged duplicates, simplified-away ops, folded inputs
// that only fed the fold). Every source value stays computable.
void eliminate_dead_code(OptGraph& g);

// Keeps only what `fetches` (values of g.graph) need, through inputs and
// control inputs; source values outside that become {-1, 0}. The fetches'
// new ids are written back into `fetches`.
void prune_to_fetches(OptGraph& g, std::vector<ValueRef>& fetches);

}  // namespace nabla::graph

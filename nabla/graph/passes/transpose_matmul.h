// Transposed matmul results, computed transposed: permute(mm(permute(x), g))
// becomes mm(permute(g), x), since (xᵀ g)ᵀ = gᵀ x. Gradients of Linear
// weights have exactly the first form (the weight is used transposed), and
// a strided result costs a full transposing copy wherever it must be
// contiguous (an optimizer's fused update); BLAS takes the transposed operand
// for free. Per plan: the inner mm's value must be used only by the permute
// and not fetched. Results equal up to the summation order inside the GEMM.
#pragma once
#include <vector>

#include "nabla/graph/passes/opt_graph.h"

namespace nabla::graph {

// Rewrites every such pair in place; returns how many.
int transpose_matmul_results(OptGraph& g, const std::vector<ValueRef>& fetches);

}  // namespace nabla::graph

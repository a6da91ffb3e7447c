#include "nabla/graph/passes/transpose_matmul.h"

#include <utility>

namespace nabla::graph {

namespace {

bool plain_op(const Node& n, std::string_view name) { return is_plain_op(n, name) && n.metas[0].sizes.size() == 2; }

// A 2-D permute that swaps the two dims.
bool is_transpose(const Node& n) {
  if (!plain_op(n, "permute")) return false;
  const Shape& dims = n.attrs.ints(0);
  return dims.size() == 2 && (dims[0] == 1 || dims[0] == -1) && (dims[1] == 0 || dims[1] == -2);
}

}  // namespace

int transpose_matmul_results(OptGraph& g, const std::vector<ValueRef>& fetches) {
  const int n = g.size();
  const std::vector<int> uses = use_counts(g, fetches);
  int rewritten = 0;
  for (int p = 0; p < n; ++p) {
    Node& outer = g.node(p);
    if (!is_transpose(outer)) continue;
    const int m = outer.inputs[0].node;
    Node& mm = g.node(m);
    if (!plain_op(mm, "mm") || uses[static_cast<std::size_t>(m)] != 1) continue;
    const Node& a = g.node(mm.inputs[0].node);
    if (!is_transpose(a)) continue;
    const ValueRef x = a.inputs[0], grad = mm.inputs[1];
    const OutputMeta& gm = g.node(grad.node).metas[static_cast<std::size_t>(grad.output)];
    // mm becomes gᵀ (it comes after g), the permute becomes gᵀ x (after x,
    // which comes before a, which comes before mm).
    Attrs mm_attrs = mm.attrs;
    mm.op = outer.op;
    mm.attrs = outer.attrs;
    mm.inputs = {grad};
    mm.metas = {{Shape{gm.sizes[1], gm.sizes[0]}, gm.dtype}};
    g.origin[static_cast<std::size_t>(m)] = -1;
    for (auto& values : g.source_values)
      for (ValueRef& v : values)
        if (v.node == m) v = {-1, 0};
    outer.op = find_op("mm");
    outer.attrs = mm_attrs;
    outer.inputs = {{m, 0}, x};
    std::swap(mm.name, outer.name);  // so printed plans read "mm = mm(permute, x)"
    ++rewritten;
  }
  return rewritten;
}

}  // namespace nabla::graph

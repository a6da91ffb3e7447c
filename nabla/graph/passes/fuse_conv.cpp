#include "nabla/graph/passes/fuse_conv.h"

namespace nabla::graph {

namespace {

bool plain_op(const Node& n, std::string_view name) {
  return is_plain_op(n, name) && (n.metas[0].dtype == kFloat32 || n.metas[0].dtype == kFloat64);
}

}  // namespace

int fuse_conv_relu(OptGraph& g, const std::vector<ValueRef>& fetches) {
  const OpDef* conv2d_relu = find_op("conv2d_relu");
  NABLA_CHECK(conv2d_relu, "graph::fuse_conv_relu: conv2d_relu is not in the op table");
  const int n = g.size();
  const std::vector<int> uses = use_counts(g, fetches);
  int rewritten = 0;
  for (int r = 0; r < n; ++r) {
    Node& relu = g.node(r);
    if (!plain_op(relu, "relu") || relu.inputs.size() != 1) continue;
    const int c = relu.inputs[0].node;
    const Node& conv = g.node(c);
    if (!plain_op(conv, "conv2d") || uses[static_cast<std::size_t>(c)] != 1) continue;
    bool assign_between = false;
    for (int k = c + 1; k < r && !assign_between; ++k) assign_between = changes_state(g.node(k).kind);
    if (assign_between) continue;
    relu.op = conv2d_relu;
    relu.attrs = conv.attrs;
    relu.inputs = conv.inputs;
    ++rewritten;
  }
  return rewritten;
}

}  // namespace nabla::graph

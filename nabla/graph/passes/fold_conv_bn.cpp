#include "nabla/graph/passes/fold_conv_bn.h"

#include <string>
#include <utility>

namespace nabla::graph {

namespace {

bool plain_op(const Node& n, std::string_view name) {
  return is_plain_op(n, name) && (n.metas[0].dtype == kFloat32 || n.metas[0].dtype == kFloat64);
}

int64_t elements(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

const OutputMeta& meta_of(const OptGraph& g, ValueRef r) {
  return g.node(r.node).metas[static_cast<std::size_t>(r.output)];
}

// The conv2d node that channel_affine node `r` can be folded into, or -1.
int foldable_conv(const OptGraph& g, int r, const std::vector<int>& uses) {
  const Node& affine = g.node(r);
  if (!plain_op(affine, "channel_affine") || affine.inputs.size() != 4) return -1;
  const int c = affine.inputs[0].node;
  const Node& conv = g.node(c);
  if (!plain_op(conv, "conv2d") || uses[static_cast<std::size_t>(c)] != 1) return -1;
  const DType dt = conv.metas[0].dtype;
  if (affine.metas[0].dtype != dt) return -1;
  // Every input in the output's dtype (the ops promote; the folded weight and
  // bias must be what the convolution would have read).
  for (const Node* n : {&conv, &affine})
    for (const ValueRef& in : n->inputs)
      if (meta_of(g, in).dtype != dt) return -1;
  const Shape& w = meta_of(g, conv.inputs[1]).sizes;
  if (w.size() != 4) return -1;
  // w' is computed at every run: a pass over the weight (read w, write w')
  // to save one over the output (channel_affine's read and write). Worth it
  // only where the output is at least as large as the weight: early layers
  // and large batches, not a late 3x3 convolution on a small map (resnet18's
  // layer4 at batch 8 on 64x64 images: 16K outputs, 2.4M weights).
  if (elements(conv.metas[0].sizes) < elements(w)) return -1;
  return c;
}

}  // namespace

int fold_conv_batch_norm(OptGraph& g, std::vector<ValueRef>& fetches) {
  const int n = g.size();
  // Inference plans only: a plan that changes state (an optimizer's update,
  // an assign) is a training step, which compile() runs with eager's values
  // bit for bit (folding rounds differently). This also keeps every read of
  // a weight on its side of any update.
  for (const Node& node : g.graph.nodes)
    if (changes_state(node.kind)) return 0;
  const std::vector<int> uses = use_counts(g, fetches);
  std::vector<int> conv_of(static_cast<std::size_t>(n), -1);
  int folded = 0;
  for (int r = 0; r < n; ++r) {
    conv_of[static_cast<std::size_t>(r)] = foldable_conv(g, r, uses);
    folded += conv_of[static_cast<std::size_t>(r)] >= 0;
  }
  if (folded == 0) return 0;

  // Rebuild the node list with the nodes computing w' and b' just before each
  // folded node (all their inputs come earlier, so one sweep renumbers).
  NodeListRebuild rebuild(g);
  for (int i = 0; i < n; ++i) {
    Node node = rebuild.take(i);
    if (const int c = conv_of[static_cast<std::size_t>(i)]; c >= 0) {
      const Node& conv = rebuild.kept(c);  // copied from before the first add()
      const OpDef* conv_op = conv.op;
      const Attrs conv_attrs = conv.attrs;
      const std::vector<ValueRef> conv_in = conv.inputs;
      const DType dt = node.metas[0].dtype;
      const Shape w_sizes = rebuild.meta(conv_in[1]).sizes;
      const int64_t channels = w_sizes[0];
      auto add = [&](const std::string& suffix, std::string_view op, std::vector<ValueRef> in, Shape sizes,
                     Attrs attrs = {}) {
        return rebuild.add("graph::fold_conv_batch_norm", node, op, node.name + "/" + suffix, std::move(in),
                           std::move(sizes), dt, std::move(attrs));
      };
      const ValueRef center = node.inputs[1], scale = node.inputs[2], shift = node.inputs[3];
      const Shape per_channel{channels};
      const Shape column{channels, 1, 1, 1};
      ValueRef w = add("folded_weight", "mul", {conv_in[1], add("scale", "view", {scale}, column, {column})}, w_sizes);
      ValueRef b;
      if (conv_in.size() == 3) {
        ValueRef centered = add("centered_bias", "sub", {conv_in[2], center}, per_channel);
        b = add("folded_bias", "add", {add("scaled_bias", "mul", {centered, scale}, per_channel), shift}, per_channel);
      } else {
        b = add("folded_bias", "sub", {shift, add("scaled_mean", "mul", {center, scale}, per_channel)}, per_channel);
      }
      node.op = conv_op;
      node.attrs = conv_attrs;
      node.inputs = {conv_in[0], w, b};
    }
    rebuild.keep(i, std::move(node));
  }
  rebuild.finish(fetches);
  return folded;
}

}  // namespace nabla::graph

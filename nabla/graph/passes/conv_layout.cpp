#include "nabla/graph/passes/conv_layout.h"

#include <string>
#include <utility>

namespace nabla::graph {

namespace {

bool is_op(const Node& n, std::string_view name) { return n.kind == NodeKind::Op && !n.fused && n.op->name == name; }

bool is_conv_forward(const Node& n) { return is_op(n, "conv2d") || is_op(n, "conv2d_relu"); }

const OutputMeta& meta_of(const OptGraph& g, ValueRef r) {
  return g.node(r.node).metas[static_cast<std::size_t>(r.output)];
}

// Ops whose 4-d outputs follow their inputs' format in eager mode
// (ops/memory_format_rules.cpp): which input decides.
int format_source(const Node& n) {
  if (n.kind != NodeKind::Op || n.fused) return -1;
  std::string_view op = n.op->name;
  if (op == "max_pool2d" || op == "max_pool2d_backward" || op == "max_pool2d_gather" || op == "avg_pool2d" ||
      op == "avg_pool2d_backward" || op == "adaptive_avg_pool2d" || op == "adaptive_avg_pool2d_backward" ||
      op == "native_batch_norm" || op == "native_batch_norm_relu" || op == "channel_affine")
    return 0;
  if (op == "native_batch_norm_backward" || op == "native_batch_norm_relu_backward") return 1;
  return -1;
}

// Whether the pass takes value `r` to be channels-last at run time, given
// which values it already knows are (`nhwc`, per node per output).
bool runs_nhwc(const std::vector<std::vector<char>>& nhwc, ValueRef r) {
  return nhwc[static_cast<std::size_t>(r.node)][static_cast<std::size_t>(r.output)] != 0;
}

// The rule of memory_format_rules.cpp for node `n`'s 4-d outputs, on the
// formats the pass has inferred for its inputs.
bool output_nhwc(const OptGraph& g, const std::vector<std::vector<char>>& nhwc, const Node& n) {
  if (n.kind != NodeKind::Op || n.fused || n.metas.empty() || n.metas[0].sizes.size() != 4) return false;
  auto input_nhwc = [&](std::size_t k) { return k < n.inputs.size() && runs_nhwc(nhwc, n.inputs[k]); };
  if (is_conv_forward(n) || is_op(n, "conv_transpose2d")) return input_nhwc(0) || input_nhwc(1);
  if (int k = format_source(n); k >= 0) return input_nhwc(static_cast<std::size_t>(k));
  // Elementwise ops (not clone, which copies into a contiguous buffer): a
  // channels-last input of the output's shape makes the output channels-last.
  if (n.op->has(kElementwise) && n.op->name != "clone")
    for (std::size_t k = 0; k < n.inputs.size(); ++k)
      if (input_nhwc(k) && meta_of(g, n.inputs[k]).sizes == n.metas[0].sizes) return true;
  return false;
}

// The convolutions whose input 0 the pass converts.
bool wants_nhwc_input(const OptGraph& g, const Node& n) {
  if (!is_conv_forward(n) || n.inputs.size() < 2 || !n.control_inputs.empty()) return false;
  const OutputMeta& x = meta_of(g, n.inputs[0]);
  const DType dt = n.metas[0].dtype;
  return x.sizes.size() == 4 && (dt == kFloat32 || dt == kBFloat16) && x.dtype == dt &&
         meta_of(g, n.inputs[1]).sizes.size() == 4;
}

}  // namespace

int channels_last_convolutions(OptGraph& g, std::vector<ValueRef>& fetches) {
  const int n = g.size();
  std::vector<std::vector<char>> nhwc(static_cast<std::size_t>(n));
  // Values to convert, in the order of their first convolution: a value's
  // conversion is inserted just before that node.
  std::vector<char> convert_before(static_cast<std::size_t>(n), 0);
  std::vector<ValueRef> converted_values;
  auto converted = [&](ValueRef r) {
    for (const ValueRef& c : converted_values)
      if (c == r) return true;
    return false;
  };
  for (int i = 0; i < n; ++i) {
    const Node& node = g.node(i);
    nhwc[static_cast<std::size_t>(i)].assign(node.metas.size(), 0);
    if (wants_nhwc_input(g, node) && !runs_nhwc(nhwc, node.inputs[0]) && !converted(node.inputs[0])) {
      convert_before[static_cast<std::size_t>(i)] = 1;
      converted_values.push_back(node.inputs[0]);
    }
    // With its input converted, the convolution (and what follows) runs NHWC.
    const bool out_nhwc = output_nhwc(g, nhwc, node) || (is_conv_forward(node) && converted(node.inputs[0]) &&
                                                         wants_nhwc_input(g, node));
    for (std::size_t o = 0; o < node.metas.size(); ++o)
      nhwc[static_cast<std::size_t>(i)][o] = out_nhwc && node.metas[o].sizes.size() == 4;
  }
  if (converted_values.empty()) return 0;

  // Rebuild the node list with each conversion (permute, clone, permute back)
  // before the first convolution reading the value; convolutions and weight
  // gradients that read the value then read the conversion.
  NodeListRebuild rebuild(g);
  std::vector<std::pair<ValueRef, ValueRef>> replacement;  // old value (old ids) -> its NHWC view (new ids)
  auto replaced = [&](ValueRef old) -> ValueRef {
    for (const auto& [from, to] : replacement)
      if (from == old) return to;
    return {-1, 0};
  };
  for (int i = 0; i < n; ++i) {
    const std::vector<ValueRef> old_inputs = g.node(i).inputs;
    Node node = rebuild.take(i);
    if (convert_before[static_cast<std::size_t>(i)]) {
      const ValueRef x = node.inputs[0];
      const OutputMeta xm = rebuild.meta(x);
      const Shape nhwc_sizes{xm.sizes[0], xm.sizes[2], xm.sizes[3], xm.sizes[1]};
      const std::string base = rebuild.kept(old_inputs[0].node).name + "/nhwc";
      auto add = [&](const std::string& suffix, std::string_view op, ValueRef in, Shape sizes, Attrs attrs) {
        return rebuild.add("graph::channels_last_convolutions", node, op, base + suffix, {in}, std::move(sizes),
                           xm.dtype, std::move(attrs));
      };
      ValueRef dense = add("_copy", "clone", add("_permuted", "permute", x, nhwc_sizes, {Shape{0, 2, 3, 1}}),
                           nhwc_sizes, {});
      ValueRef view = add("", "permute", dense, xm.sizes, {Shape{0, 3, 1, 2}});
      replacement.emplace_back(old_inputs[0], view);
    }
    // Convolutions and weight gradients read the NHWC view of a converted input.
    if ((is_conv_forward(node) || is_op(node, "conv2d_weight_grad")) && !old_inputs.empty())
      if (ValueRef v = replaced(old_inputs[0]); v.node >= 0) node.inputs[0] = v;
    rebuild.keep(i, std::move(node));
  }
  rebuild.finish(fetches);
  return static_cast<int>(converted_values.size());
}

}  // namespace nabla::graph

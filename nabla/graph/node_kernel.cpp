#include "nabla/ops/kernel_registry.h"
#include "nabla/graph/node_kernel.h"

namespace nabla::graph {

namespace {

const OutputMeta& meta_of(const GraphData& g, const ValueRef& r) {
  return g.nodes[static_cast<std::size_t>(r.node)].metas[static_cast<std::size_t>(r.output)];
}

bool known(const Shape& s) {
  for (int64_t d : s)
    if (d < 0) return false;
  return true;
}

}  // namespace

KernelFn direct_cpu_kernel(const GraphData& g, const Node& node) {
  if (node.kind != NodeKind::Op || node.fused || !node.op || node.op->composite || node.op->has(kView) ||
      node.op->name == "view" || node.metas.empty())
    return nullptr;
  const OpDef& op = *node.op;
  KernelFn kernel = find_kernel(op, DeviceType::CPU);
  if (!kernel) return nullptr;
  if (op.num_inputs >= 0 && static_cast<std::size_t>(op.num_inputs) != node.inputs.size()) return nullptr;
  // call() computes float16/bfloat16 in float32 through casts: leave it to call().
  for (const OutputMeta& m : node.metas)
    if (is_reduced_float(m.dtype) || !known(m.sizes)) return nullptr;
  for (const ValueRef& r : node.inputs)
    if (is_reduced_float(meta_of(g, r).dtype) || !known(meta_of(g, r).sizes)) return nullptr;
  // Promotion is a no-op when the promoted inputs already share a dtype that
  // the op accepts (result_type of equal dtypes is that dtype).
  if (op.promote != Promote::None && node.inputs.size() > static_cast<std::size_t>(op.promote_from)) {
    const DType first = meta_of(g, node.inputs[static_cast<std::size_t>(op.promote_from)]).dtype;
    for (std::size_t i = static_cast<std::size_t>(op.promote_from); i < node.inputs.size(); ++i)
      if (meta_of(g, node.inputs[i]).dtype != first) return nullptr;
    if (op.promote == Promote::CommonFloat && !is_floating(first)) return nullptr;
  }
  return kernel;
}

bool inputs_match(const GraphData& g, const Node& node, Inputs inputs) {
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    const OutputMeta& m = meta_of(g, node.inputs[i]);
    if (!t.defined() || !t.device().is_cpu() || t.dtype() != m.dtype || !(t.sizes() == m.sizes)) return false;
  }
  return true;
}

}  // namespace nabla::graph

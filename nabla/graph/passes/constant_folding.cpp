// One forward sweep, so folds cascade (exp(c) * 2 folds both nodes).
#include "nabla/graph/passes/constant_folding.h"

#include <algorithm>

#include "nabla/core/grad_mode.h"
#include "nabla/graph/run_op.h"

namespace nabla::graph {

int fold_constants(OptGraph& g) {
  NoGradGuard no_grad;
  int folded = 0;
  for (int id = 0; id < g.size(); ++id) {
    Node& n = g.node(id);
    if (n.kind != NodeKind::Op || n.fused || n.op->has(kRandom) || n.metas.size() != 1) continue;
    bool all_constant = true;
    for (const ValueRef& r : n.inputs) all_constant &= g.node(r.node).kind == NodeKind::Constant;
    if (!all_constant) continue;
    const OutputMeta& m = n.metas[0];
    int64_t numel = 1;
    for (int64_t d : m.sizes) numel *= d;
    if (numel * static_cast<int64_t>(itemsize(m.dtype)) > kMaxFoldedBytes) continue;
    TensorList ins;
    for (const ValueRef& r : n.inputs) ins.push_back(g.node(r.node).value);
    Tensor result;
    try {
      result = run_op_node(n, Inputs(ins.data(), ins.size()))[0];
    } catch (const Error&) {
      continue;  // raised again, with the node's name, when a run needs it
    }
    // Own the data: a view would alias the input constant, a later write to it too.
    if (result.impl()->is_view || !result.is_contiguous()) result = result.clone();
    std::vector<int> controls = n.control_inputs;
    for (const ValueRef& r : n.inputs) {
      const Node& in = g.node(r.node);
      g.read_constants.emplace_back(in.value, in.value.version());
      // What had to run before an input constant must still run before the fold.
      for (int c : in.control_inputs)
        if (std::find(controls.begin(), controls.end(), c) == controls.end()) controls.push_back(c);
    }
    n.control_inputs = std::move(controls);
    n.kind = NodeKind::Constant;
    n.op = nullptr;
    n.attrs = Attrs();
    n.inputs.clear();  // control inputs stay: whatever they run still runs first
    n.value = result;
    ++folded;
  }
  return folded;
}

}  // namespace nabla::graph

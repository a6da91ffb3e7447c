#include "nabla/graph/run_op.h"

#include "nabla/ops/shape.h"

namespace nabla::graph {

// At build time every symbolic value is contiguous, so reshape() records a
// `view` node; at run time the input may be a strided view (an expand, a
// transpose), so a graph's `view` means reshape: a view when the strides
// allow it, else a copy. Graph values cannot observe aliasing.
TensorList run_op_node(const Node& node, Inputs ins) {
  if (node.op->name == "view") return {reshape(ins[0], node.attrs.ints(0))};
  return call(*node.op, ins, node.attrs);
}

}  // namespace nabla::graph

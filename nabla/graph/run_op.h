// Running one op node eagerly (Session, constant folding): the op table's
// call(), except that a graph's `view` means reshape (see run_op.cpp).
#pragma once
#include "nabla/graph/node.h"

namespace nabla::graph {

TensorList run_op_node(const Node& node, Inputs inputs);

}  // namespace nabla::graph

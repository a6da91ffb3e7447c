// Batch norm in training mode fused with the ReLU after it, forward and
// backward (ResNet's bn -> relu, in every block):
//   relu(native_batch_norm(x, w, b)[0])
//     -> native_batch_norm_relu(x, w, b)[0]   (ReLU applied as y is written)
//   native_batch_norm_backward(threshold_backward(g, y, 0), x, mean, var[, w])
//     -> native_batch_norm_relu_backward(g, x, mean, var, y[, w])
//                                            (the mask applied as g is read)
// Each saves a full pass over the activations and its tensor. The values are
// the unfused ones bit for bit: the fused kernels are the same loops with
// relu's and threshold_backward's expressions inlined (kernels/cpu/batch_norm.cpp).
//
// Per plan, on the CPU, float32/float64/bfloat16 plain op nodes:
// - forward: the native_batch_norm node becomes the fused one in place when
//   its output 0 has no use but the relu (not fetched); the relu's uses then
//   read it, and the relu is left without uses;
// - backward, independently (it holds for any g, y): the threshold_backward
//   must have threshold 0, no use but the batch norm backward's grad_output,
//   no control inputs, and no assign may lie between the two (the fused node
//   reads g and y where the batch norm backward was).
#pragma once
#include <vector>

#include "nabla/graph/passes/opt_graph.h"

namespace nabla::graph {

// Rewrites every such pair; returns how many nodes it rewrote (forward and
// backward counted apart). Fetches of a relu fused away are redirected to the
// fused node. Run prune_to_fetches() after.
int fuse_batch_norm_relu(OptGraph& g, std::vector<ValueRef>& fetches);

}  // namespace nabla::graph

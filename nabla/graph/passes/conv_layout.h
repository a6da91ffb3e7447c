// The layout pass: a CPU plan runs its convolution blocks channels-last
// (NHWC), whatever layout the graph was traced or built in.
//
// A traced graph has no memory formats (a symbolic to(x, ChannelsLast) is x
// itself) and plan buffers used to be contiguous, so every float32
// convolution reordered its NCHW input into oneDNN's layout and its output
// back, and pooling and batch norm ran NCHW. This pass converts the
// activation a convolution reads into channels-last once, where it enters a
// convolution block:
//   x -> permute(0, 2, 3, 1) -> clone -> permute(0, 3, 1, 2) -> conv2d ...
// (the same three ops as to(x, MemoryFormat::ChannelsLast) in eager mode: a
// dense NHWC buffer seen as [N, C, H, W]). From there the run follows eager
// mode's memory-format rules (ops/memory_format_rules.h), since the Session
// now allocates each output buffer in the format those rules give for the
// inputs at hand: convolutions, pooling, batch norm, ReLU and the other
// elementwise ops, and their backward ops, keep NHWC; the first op that does
// not (a flatten's reshape before a linear layer) makes one contiguous copy.
// So a CNN's step reorders its input once and its output once, and the
// gradients flow back NHWC the same way.
//
// Which convolutions: conv2d and conv2d_relu nodes of float32 or bfloat16
// (oneDNN's; float64 runs im2col, for which NHWC would only add copies) with
// a 4-d input that is not channels-last already as far as the pass can tell
// (the output of a convolution, pool, batch norm or elementwise op fed by a
// channels-last value is). The same converted value also replaces that
// input in the conv2d_weight_grad nodes that read it, so the weight
// gradient reads NHWC too. Blocked layouts (oneDNN's nChw16c) are not
// used between ops: nabla's tensors are strided, and NHWC is the one
// layout that oneDNN's direct kernels, nabla's pooling, batch-norm and
// elementwise kernels all run in place.
//
// Values are the same as the contiguous plan's up to the order of float32
// sums (NHWC kernels sum in another order): not bit-identical.
#pragma once
#include <vector>

#include "nabla/graph/passes/opt_graph.h"

namespace nabla::graph {

// Inserts the conversions (nodes renumbered, `fetches` with them). Returns
// how many values were converted.
int channels_last_convolutions(OptGraph& g, std::vector<ValueRef>& fetches);

}  // namespace nabla::graph

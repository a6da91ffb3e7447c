// Op nodes resolved once, when an execution plan is built. call() works out
// at every op what a plan node's static metas already fix: dtype promotion,
// shape and dtype inference, the kernel for the device, whether float16 or
// bfloat16 must be computed in float32. For a node whose answers are all
// trivial (no promotion needed, no reduced floats, a plain kernel that writes
// into given outputs) the Session calls the CPU kernel directly, writing into
// an output buffer it reuses across runs; everything else (views, composites,
// promotion, reduced floats, inputs not on the CPU at run time) still runs
// through run_op_node.
#pragma once
#include "nabla/graph/node.h"

namespace nabla::graph {

// The CPU kernel the Session may call directly for op node `node` of `g`, or
// nullptr when the node must run through call(): the kernel then computes
// exactly what call() would, given inputs that match inputs_match().
KernelFn direct_cpu_kernel(const GraphData& g, const Node& node);

// Whether run-time `inputs` are what the direct kernel of `node` was resolved
// for: defined, on the CPU, with the dtypes and shapes of the node's input
// metas (always so for values the plan computed; a cheap guard all the same).
bool inputs_match(const GraphData& g, const Node& node, Inputs inputs);

}  // namespace nabla::graph

// float16/bfloat16 on the CPU without a kernel of their own: the inputs are
// widened to float32, the float32 kernel runs, and the results are rounded
// back. Eager dispatch does this for every op without kNativeReducedFloat; a
// kernel that handles one reduced type itself (bfloat16 matmul and
// convolution on oneDNN) calls it for the other, or where its fast path
// declines.
#pragma once
#include "nabla/ops/op.h"

namespace nabla {

void run_in_float32(const OpDef& op, KernelFn kernel, Inputs inputs, const Attrs& attrs, std::span<Tensor> outputs);

}  // namespace nabla

// CPU kernels of the loss ops that have one (see nabla/ops/*loss*_ops.cpp for
// the table entries, their attribute layouts and gradient rules). They follow
// the KernelFn signature; float16/bfloat16 arrive as float32 (dispatcher).
//
// Class losses see input [N, C, d...] (the public functions turn [C] into
// [1, C]), int64 target [N, d...] and an optional weight [C]; per-sample
// results are accumulated in double so that "mean" and "sum" do not depend on
// the float type's rounding or on the thread count.
#pragma once
#include <span>

#include "nabla/core/tensor.h"
#include "nabla/ops/attrs.h"

namespace nabla::cpu {

// attrs: ignore_index, label_smoothing, reduction. One pass per sample:
// max, sum of exp(x - max), log-sum-exp, then the target (and smoothing) terms.
void cross_entropy_kernel(std::span<const Tensor> in, const Attrs& attrs, std::span<Tensor> out);
// attrs: ignore_index, reduction. loss = -weight[t] * input[t].
void nll_loss_kernel(std::span<const Tensor> in, const Attrs& attrs, std::span<Tensor> out);
// attrs: reduction. Inputs: probabilities, target, optional weight (broadcast).
void binary_cross_entropy_kernel(std::span<const Tensor> in, const Attrs& attrs, std::span<Tensor> out);

}  // namespace nabla::cpu

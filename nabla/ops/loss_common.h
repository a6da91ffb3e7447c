// Shared pieces of the loss ops (internal to nabla/ops): the reduction
// argument, the argument checks every loss makes with the same wording, and
// the helpers their composites and gradient rules use.
#pragma once
#include <string>
#include <string_view>

#include "nabla/core/tensor.h"

namespace nabla::detail {

enum class Reduction { None, Mean, Sum, BatchMean };

// Parses "none" | "mean" | "sum" (and "batchmean" where allowed); throws
// naming `loss` otherwise.
Reduction parse_reduction(std::string_view loss, const std::string& reduction, bool allow_batchmean = false);

// sum / mean of an elementwise loss; "none" returns it as it is.
Tensor reduce_loss(const Tensor& loss, Reduction reduction);
// The gradient of reduce_loss for an elementwise loss of shape `sizes`:
// g broadcast back (and divided by the element count for "mean").
Tensor unreduce_grad(const Tensor& g, const Shape& sizes, Reduction reduction);

void check_floating(std::string_view loss, std::string_view what, const Tensor& t);
// input and target of an elementwise loss: same shape, floating input.
void check_same_shape(std::string_view loss, const Tensor& input, const Tensor& target);
// An optional tensor that must broadcast to the input's shape.
void check_broadcasts_to(std::string_view loss, std::string_view what, const Tensor& t, const Shape& sizes);

// Class-index targets: int64 kept, int32 converted, anything else rejected.
Tensor index_target(std::string_view loss, const Tensor& target);
// The checks of a class loss on input [N, C, d...] (or [C]) and index target
// [N, d...] (or []), and of its optional weight [C].
void check_class_target(std::string_view loss, const Tensor& input, const Tensor& target);
void check_class_weight(std::string_view loss, const Tensor& weight, int64_t classes);

// log softmax along `dim` as (x - m) - log(sum(exp(x - m))) with m the
// (detached) max: unlike x - logsumexp(x), it never subtracts two large
// numbers, so float32 logits of +-1000 keep their full precision. Internal:
// the losses must not depend on the softmax family's ops.
Tensor log_softmax_stable(const Tensor& x, int64_t dim);

// Batched views for the class ops: [C] -> [1, C] and [] -> [1].
Tensor batched_input(const Tensor& input);
Tensor batched_target(const Tensor& target, const Tensor& input);

// One-hot of index target t [N, d...] over `classes`, laid out as
// [N, C, d...] in dtype `dt` (rows of ignored targets may be all zero).
Tensor one_hot_classes(const Tensor& t, int64_t classes, DType dt);
// weight [C] reshaped to broadcast along dim 1 of an [N, C, d...] tensor of `ndim` dims.
Tensor class_dim_view(const Tensor& weight, int64_t ndim);

}  // namespace nabla::detail

// The memory format of eager CPU outputs (see memory_format_rules.h).
#include "nabla/ops/memory_format_rules.h"

namespace nabla {

extern const OpDef clone_op, conv2d_op, conv2d_relu_op, conv_transpose2d_op, max_pool2d_op, max_pool2d_backward_op,
    max_pool2d_gather_op, avg_pool2d_op, avg_pool2d_backward_op, adaptive_avg_pool2d_op,
    adaptive_avg_pool2d_backward_op, native_batch_norm_op, native_batch_norm_backward_op, native_batch_norm_relu_op,
    native_batch_norm_relu_backward_op, channel_affine_op;

namespace detail {
namespace {

// A 4-d input that is not plain contiguous, or whose strides suggest
// channels-last although it is also contiguous (a [N, 1, H, W] batch or an
// [O, 1, KH, KW] weight made channels-last by to(x, ChannelsLast)).
bool has_channels_last_candidate(Inputs inputs) {
  for (const Tensor& t : inputs)
    if (t.defined() && t.dim() == 4 && (!t.is_contiguous() || strides_like_channels_last(t.sizes(), t.strides())))
      return true;
  return false;
}

// Ops whose output follows input 0's format: the pooling ops and their
// backward ops (all map [N, C, H, W] planes to planes), and batch norm's
// forward ops (y has x's format, as in PyTorch).
bool follows_input0(const OpDef& op) {
  return &op == &max_pool2d_op || &op == &max_pool2d_backward_op || &op == &max_pool2d_gather_op ||
         &op == &avg_pool2d_op || &op == &avg_pool2d_backward_op || &op == &adaptive_avg_pool2d_op ||
         &op == &adaptive_avg_pool2d_backward_op || &op == &native_batch_norm_op || &op == &native_batch_norm_relu_op ||
         &op == &channel_affine_op;
}

}  // namespace

MemoryFormat output_memory_format(const OpDef& op, Inputs inputs, const Shape& out_sizes) {
  if (out_sizes.size() != 4 || !has_channels_last_candidate(inputs)) return MemoryFormat::Contiguous;
  // clone() stays a contiguous copy: contiguous() and the kernels' copies rely
  // on it (clone(x, MemoryFormat::Preserve) is PyTorch's clone()).
  if (op.has(kElementwise) && &op != &clone_op) return elementwise_memory_format(inputs, out_sizes);
  if (&op == &conv2d_op || &op == &conv2d_relu_op || &op == &conv_transpose2d_op) {
    // PyTorch's mkldnn_conv_use_channels_last: the input's or the weight's format.
    for (int i = 0; i < 2 && i < static_cast<int>(inputs.size()); ++i)
      if (inputs[i].dim() == 4 && suggest_memory_format(inputs[i]) == MemoryFormat::ChannelsLast)
        return MemoryFormat::ChannelsLast;
    return MemoryFormat::Contiguous;
  }
  if (follows_input0(op) && !inputs.empty() && inputs[0].dim() == 4) return suggest_memory_format(inputs[0]);
  // Batch norm's dx has the input's format (input 1; input 0 is dy).
  if ((&op == &native_batch_norm_backward_op || &op == &native_batch_norm_relu_backward_op) && inputs.size() > 1 &&
      inputs[1].dim() == 4)
    return suggest_memory_format(inputs[1]);
  return MemoryFormat::Contiguous;
}

}  // namespace detail
}  // namespace nabla

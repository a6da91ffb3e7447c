// MemoryFormat: how a tensor's elements are laid out in memory, PyTorch's
// torch.memory_format. The logical shape never changes (a 4-d image batch is
// always indexed N, C, H, W); the format says which strides it has.
//   Contiguous:   row-major strides (NCHW in memory for images).
//   ChannelsLast: a 4-d tensor stored as NHWC: strides (H*W*C, 1, W*C, C).
//   Preserve:     keep the input's format (the default of *_like and to()).
// The stride rules here are exactly PyTorch's (c10/core/MemoryFormat.h and
// TensorImpl's contiguity checks). The ops that copy into a format
// (contiguous(x, format), to(x, format), empty(sizes, options, format), ...)
// are in nabla/ops/memory_format.h.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <span>

#include "nabla/core/tensor.h"

namespace nabla {

enum class MemoryFormat : uint8_t { Contiguous, ChannelsLast, Preserve };

// "contiguous_format", "channels_last", "preserve_format" (PyTorch's names).
const char* memory_format_name(MemoryFormat f);
std::ostream& operator<<(std::ostream& os, MemoryFormat f);

// Strides of `format` for `sizes`: row-major for Contiguous; NHWC order for
// ChannelsLast (4 dims; size-0 dims count as 1, as in contiguous_strides).
// `api` names the caller in the errors (Preserve, ChannelsLast not 4-d).
Shape memory_format_strides(std::span<const int64_t> sizes, MemoryFormat format, const char* api);

// PyTorch's x.is_contiguous(memory_format=format): the strides are those of
// the format, ignoring size-1 dims (whose strides address nothing). A
// [N, C, 1, 1] or [N, 1, H, W] tensor can be both. Preserve is an error.
bool is_contiguous(const Tensor& x, MemoryFormat format);

// PyTorch's is_channels_last_strides_2d: strides that order the dims C, W, H,
// N from fastest to slowest, with its rules for the ambiguous size-1 cases
// (a [N,1,1,1] tensor, or a zero channel stride, stays Contiguous).
bool strides_like_channels_last(std::span<const int64_t> sizes, std::span<const int64_t> strides);

// PyTorch's x.suggest_memory_format(): ChannelsLast when the strides are
// like channels-last (above), else Contiguous.
MemoryFormat suggest_memory_format(const Tensor& x);

// The format of an elementwise result from its inputs (PyTorch's
// TensorIterator, simplified): the first input with the output's 4-d shape
// decides (its suggested format); broadcast inputs take no part; Contiguous
// when no input has the output's shape.
MemoryFormat elementwise_memory_format(std::span<const Tensor> inputs, const Shape& out_sizes);

// make_empty with the strides of `format` (Contiguous or ChannelsLast).
Tensor make_empty(IntList sizes, DType dtype, Device device, MemoryFormat format, const char* api = "empty");

}  // namespace nabla

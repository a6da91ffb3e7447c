// Tensors in a memory format (nabla/core/memory_format.h): PyTorch's
// x.contiguous(memory_format=...), x.to(memory_format=...), clone and the
// factories' memory_format= argument, as functions. Channels-last tensors
// flow through the CNN ops: conv2d (oneDNN reads and writes NHWC directly),
// pooling, batch norm, activations and elementwise ops give channels-last
// results for channels-last inputs (docs/tensors.md, "Memory format").
#pragma once
#include <optional>

#include "nabla/core/memory_format.h"
#include "nabla/core/scalar.h"
#include "nabla/core/tensor.h"

namespace nabla {

// x itself when is_contiguous(x, format), else a copy in that format
// (differentiable). Preserve: x itself.
Tensor contiguous(const Tensor& x, MemoryFormat format);
// PyTorch's x.to(memory_format=format, copy=copy): x itself when
// suggest_memory_format(x) is `format` (and not copy), else a copy in it.
Tensor to(const Tensor& x, MemoryFormat format, bool copy = false);
// Always a copy, in `format`; Preserve: in x's suggest_memory_format()
// (PyTorch's clone(); nabla's clone(x) is a contiguous copy).
Tensor clone(const Tensor& x, MemoryFormat format);

// Factories with PyTorch's memory_format= (Contiguous or ChannelsLast).
Tensor empty(IntList sizes, TensorOptions options, MemoryFormat format);
Tensor zeros(IntList sizes, TensorOptions options, MemoryFormat format);
Tensor ones(IntList sizes, TensorOptions options, MemoryFormat format);
Tensor full(IntList sizes, const Scalar& value, TensorOptions options, MemoryFormat format);
// *_like with an explicit format. Without one (factory.h) they preserve the
// input's format, as in PyTorch.
Tensor empty_like(const Tensor& x, MemoryFormat format, std::optional<TensorOptions> options = std::nullopt);
Tensor zeros_like(const Tensor& x, MemoryFormat format, std::optional<TensorOptions> options = std::nullopt);
Tensor ones_like(const Tensor& x, MemoryFormat format, std::optional<TensorOptions> options = std::nullopt);

}  // namespace nabla

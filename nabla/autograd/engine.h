// The backward engine: runs gradient rules from some outputs back to leaves.
#pragma once
#include "nabla/core/tensor.h"

namespace nabla {

// Computes and returns the gradients of `outputs` w.r.t. `inputs` (without
// touching .grad()). With create_graph the result has history, so it can be
// differentiated again. grad_outputs may be empty for scalar outputs.
// Unused inputs get an undefined tensor when allow_unused, an error otherwise.
TensorList grad(const TensorList& outputs, const TensorList& inputs, const TensorList& grad_outputs = {},
                std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                bool allow_unused = false);

// backward() for several roots at once (torch.autograd.backward).
void backward(const TensorList& outputs, const TensorList& grad_outputs = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false);

}  // namespace nabla

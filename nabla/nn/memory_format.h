// PyTorch's model.to(memory_format=torch.channels_last) for nabla modules:
// every 4-d parameter and buffer (the convolution weights) is restrided in
// place, as Module::to(dtype) converts in place, so optimizers holding the
// parameters see the change. With channels-last weights and inputs, conv2d
// and the ops after it run channels-last (docs/tensors.md, "Memory format").
#pragma once
#include "nabla/core/memory_format.h"
#include "nabla/nn/module.h"

namespace nabla::nn {

// Returns `module`. Format Contiguous converts back; Preserve does nothing.
// Accumulated gradients of converted parameters are dropped (as Module::to).
Module& to(Module& module, MemoryFormat format);

}  // namespace nabla::nn

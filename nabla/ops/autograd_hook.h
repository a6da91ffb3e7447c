// How the dispatcher hands a call to autograd without depending on it: the
// autograd layer installs this hook at start-up (autograd/record.cpp).
#pragma once
#include "nabla/ops/op.h"

namespace nabla {

// Records a node for `op`. `versions` holds the inputs' versions before an
// in-place op wrote them (null for out-of-place calls).
using AutogradHook = void (*)(const OpDef& op, Inputs inputs, const Attrs& attrs, std::span<Tensor> outputs,
                              const uint32_t* versions);
void set_autograd_hook(AutogradHook hook);

}  // namespace nabla

// What eager dispatch (ops/dispatch.cpp) asks autocast (ops/autocast.h):
// whether it is on (one thread-local read per op call), and the op run on its
// cast inputs.
#pragma once
#include <optional>

#include "nabla/ops/op.h"

namespace nabla::detail {

// constinit: no dynamic initialization, so reading it from another file needs
// no TLS wrapper call (one load per op call).
extern constinit thread_local bool g_autocast_enabled;

// The op's outputs computed from its inputs cast as the op's autocast policy
// says, or nullopt when the op has no policy (dispatch then goes on as usual).
std::optional<TensorList> autocast_call(const OpDef& op, Inputs inputs, const Attrs& attrs);

}  // namespace nabla::detail

// pad's modes and how its attributes read: the op definition (ops/pad_ops.cpp)
// infers shapes with them and every backend's kernels run on them.
#pragma once
#include <string>

#include "nabla/core/tensor.h"

namespace nabla {

enum class PadMode { Constant, Reflect, Replicate };

// "constant", "reflect" or "replicate"; an Error naming pad otherwise.
PadMode parse_mode(const std::string& mode);
// Per-dim (lo, hi) from PyTorch's flat list (last dim first). For constant
// mode one pair per dim of x; for the other modes one per padded dim.
void split_pads(const Shape& pads, int64_t ndim, bool all_dims, Shape& lo, Shape& hi);

}  // namespace nabla

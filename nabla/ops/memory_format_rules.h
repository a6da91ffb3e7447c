// Which memory format an op's eager CPU outputs get (internal to ops/): the
// dispatcher asks before it allocates them. PyTorch's behaviour: elementwise
// ops follow their inputs (core/memory_format.h's elementwise rule);
// convolution, pooling, batch norm and their backward ops give a
// channels-last output for a channels-last input (convolution also for a
// channels-last weight);
// every other op gives contiguous outputs. Only CPU kernels receive
// channels-last outputs; each kernel of the ops named here writes them (its
// own layout, or through a contiguous buffer).
#pragma once
#include "nabla/core/memory_format.h"
#include "nabla/ops/op.h"

namespace nabla::detail {

// Contiguous unless a 4-d input is not contiguous or has strides like
// channels-last (the cheap test every op pays), then the op's rule. `out_sizes`: the output's shape.
MemoryFormat output_memory_format(const OpDef& op, Inputs inputs, const Shape& out_sizes);

}  // namespace nabla::detail

// The OpenCL kernel of adam_update (and so of optim::Adam/AdamW's step on an
// OpenCL device): the fused update of kernels/cpu/adam_update.h in OpenCL C,
// the same operations in the same order, with the step size and bias
// correction read from their 0-dim device tensors (no host round trip).
#pragma once

namespace nabla::opencl {

void register_adam_update_kernel();

}  // namespace nabla::opencl

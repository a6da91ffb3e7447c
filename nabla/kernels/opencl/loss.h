// OpenCL kernels of cross_entropy (class-index targets), nll_loss and
// binary_cross_entropy (kernels/device/loss.h).
#pragma once

namespace nabla::opencl {

void register_loss_kernels();

}  // namespace nabla::opencl

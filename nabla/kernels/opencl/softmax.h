// OpenCL kernels of softmax and log_softmax (kernels/device/softmax.h).
#pragma once

namespace nabla::opencl {

void register_softmax_kernels();

}  // namespace nabla::opencl

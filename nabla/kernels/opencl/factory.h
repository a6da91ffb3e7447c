// OpenCL kernels of the factory ops that fill memory with one value (full:
// zeros, ones, full, fill_, zero_ and scalar_tensor on the device).
#pragma once

namespace nabla::opencl {

void register_factory_kernels();

}  // namespace nabla::opencl

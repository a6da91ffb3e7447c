// OpenCL kernels of the factory ops: full (zeros, ones, full, fill_, zero_ and
// scalar_tensor on the device) fills memory with one value; arange, linspace
// and eye run the range kernels of kernels/device/indexing.h.
#pragma once

namespace nabla::opencl {

void register_factory_kernels();

}  // namespace nabla::opencl

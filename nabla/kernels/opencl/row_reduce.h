// OpenCL kernels of max_dim, min_dim, cumsum, cumprod and var
// (kernels/device/row_reduce.h).
#pragma once

namespace nabla::opencl {

void register_row_reduce_kernels();

}  // namespace nabla::opencl

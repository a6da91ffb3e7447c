// OpenCL kernels of the matmul family (mm, bmm) through CLBlast's GEMM:
// float32 and float64 (where the device has fp64). Strided operands are
// passed as transposes with their leading dimension when one of their two
// innermost strides is 1, else made contiguous on the device first.
#pragma once

namespace nabla::opencl {

// Registers nothing when nabla was built without CLBlast.
void register_matmul_kernels();

}  // namespace nabla::opencl

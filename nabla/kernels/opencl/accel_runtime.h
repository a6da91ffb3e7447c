// The OpenCL implementation of the accelerator runtime (kernels/accel/
// runtime.h): device C programs rendered as OpenCL C and built through the
// program cache, fills and reads with clEnqueue*, GEMM through CLBlast.
#pragma once
#include "nabla/kernels/accel/runtime.h"

namespace nabla::opencl {

accel::Runtime& accel_runtime();

}  // namespace nabla::opencl

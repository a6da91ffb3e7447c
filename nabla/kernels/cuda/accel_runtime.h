// The CUDA implementation of the accelerator runtime (kernels/accel/
// runtime.h): every kernel of kernels/accel runs on CUDA through it.
#pragma once
#include "nabla/kernels/accel/runtime.h"

namespace nabla::cuda {

accel::Runtime& accel_runtime();

}  // namespace nabla::cuda

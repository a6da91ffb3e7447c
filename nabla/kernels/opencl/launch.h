// Device C (kernels/device/device_c.h) rendered as OpenCL C: the prelude
// and the typedefs around a program's body. The kernels' host code is the
// accelerators' (kernels/accel); their OpenCL launches are accel_runtime.cpp's.
#pragma once
#include <string>

#include "nabla/core/tensor.h"
#include "nabla/kernels/accel/runtime.h"
#include "nabla/kernels/opencl/runtime.h"

namespace nabla::opencl {

// The OpenCL C program for a device C program (accel::Program): the fp64
// pragma, the prelude (device C's macros and the elementwise math
// primitives), the typedefs and the body.
std::string device_c_source(const accel::Program& program);

// An Error naming `op` unless the device's kernels take dtype `t` (OpenCL C
// has a type for it; float64 needs cl_khr_fp64).
void check_dtype(const char* op, DType t, const DeviceContext& dev);

}  // namespace nabla::opencl

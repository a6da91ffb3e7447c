// OpenCL kernels of upsample_nearest2d, upsample_bilinear2d and their
// backward ops (ops/interpolate_ops.cpp), in device C
// (kernels/device/interpolate.h), float32 and float64.
#pragma once

namespace nabla::opencl {

void register_interpolate_kernels();

}  // namespace nabla::opencl

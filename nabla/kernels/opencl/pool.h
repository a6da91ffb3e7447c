// OpenCL kernels of the pooling ops and their backward ops (ops/pool_ops.cpp):
// max_pool2d (+ backward, gather), avg_pool2d (+ backward) and
// adaptive_avg_pool2d (+ backward), in device C (kernels/device/pool.h),
// float32 and float64, with the CPU kernels' results (ties, NaN, padding,
// ceil_mode, count_include_pad, divisor_override).
#pragma once

namespace nabla::opencl {

void register_pool_kernels();

}  // namespace nabla::opencl

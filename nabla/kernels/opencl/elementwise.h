// Elementwise kernels generated from device/elementwise_exprs.h: an op's
// expression rendered into OpenCL C, compiled once per signature (op, dtypes,
// rank after merging dims) and run on any layout: sizes, strides and offsets
// are kernel arguments, broadcast dims have stride 0.
#pragma once
#include <string>

#include "nabla/kernels/device/elementwise_exprs.h"

namespace nabla::opencl {

// Runs `e` on the inputs into out (already allocated, on an OpenCL device,
// any strides). An Error names the op for a dtype the device or the op lacks.
void run_elementwise(const device_c::ElementwiseExpr& e, Inputs inputs, const Attrs& attrs, Tensor& out);

// Registers an OpenCL kernel for every row of the expression table.
void register_elementwise_kernels();

}  // namespace nabla::opencl

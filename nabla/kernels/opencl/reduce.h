// Reductions over dims (sum, prod, amax, amin, all, any) generated from
// device/elementwise_exprs.h's ReduceExpr rows: one work item per output
// element loops over its reduced elements, at any input layout.
#pragma once

namespace nabla::opencl {

// Registers an OpenCL kernel for every ReduceExpr row.
void register_reduce_kernels();

}  // namespace nabla::opencl

// OpenCL kernels of dropout, bernoulli (tensor p) and randperm
// (kernels/device/draws.h): the CPU's numbers for the same seed.
#pragma once

namespace nabla::opencl {

void register_draw_kernels();

}  // namespace nabla::opencl

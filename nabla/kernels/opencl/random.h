// OpenCL kernels of the random ops (rand, normal, randint, bernoulli_scalar):
// Philox4x32-10 in OpenCL C, element i a function of (seed, offset, i) by the
// formulas of kernels/cpu/random.cpp, so a seed draws the same numbers here as
// on the CPU (uniforms and integers bit for bit; normals to the last bits of
// the device's log and cos).
#pragma once

namespace nabla::opencl {

void register_random_kernels();

}  // namespace nabla::opencl

// Device C (kernels/device/device_c.h) rendered as CUDA C++ for NVRTC: the
// CUDA prelude (NB_KERNEL as extern "C" __global__ void, NB_INDEX from
// blockIdx/threadIdx, NB_* math as CUDA's float and double overloads,
// OpenCL's integer type names as typedefs), then the caller's typedefs, then
// the body. The OpenCL rendering of the same dialect is
// kernels/opencl/launch.cpp; a body compiles for both unchanged.
//
//   std::string src = cuda_device_c_source({{"T", kFloat32}}, device_c::softmax_source());
//   std::string ptx = nvrtc_compile(src, "softmax", "compute_90");   // nvrtc.h
#pragma once
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "nabla/core/dtype.h"

namespace nabla::cuda {

// A typedef the kernel's source uses: {"T", kFloat32} -> "typedef float T;".
using TypeDef = std::pair<const char*, DType>;

// The CUDA C type that holds a dtype's elements (bool as a 0/1 unsigned
// char, as on the CPU and in OpenCL); null for the dtypes device kernels do
// not take (float16, bfloat16).
const char* c_type(DType t);

// The CUDA prelude: device C's macros, typedefs and math primitives.
const char* cuda_prelude();

// The CUDA C program for a device C `body`: the prelude, "typedef <c_type>
// <name>;" per entry of `types`, then the body. An Error for a dtype c_type
// does not take.
std::string cuda_device_c_source(std::span<const TypeDef> types, std::string_view body);
std::string cuda_device_c_source(std::initializer_list<TypeDef> types, std::string_view body);

}  // namespace nabla::cuda

// The first OpenCL and CUDA devices, which the device tests run on (each test
// skips itself when its backend has no device).
#pragma once
#include "nabla/core/device.h"

namespace nabla::testing {

inline const Device kCl("opencl:0");
inline const Device kCuda("cuda:0");

}  // namespace nabla::testing

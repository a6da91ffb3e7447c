// Kernels are OpenCL C compiled at run time (clBuildProgram), which is slow
// (tens to hundreds of milliseconds a program on PoCL). Each program is built
// once per process (an in-memory map from the caller's signature key) and its
// binary kept on disk (nabla/opencl.h, program_cache_dir()), keyed by a hash
// of the source, the device's name, the driver's version and the build
// options, so that a second process loads it instead of compiling. Files are
// written atomically (core/atomic_file.h) and checked when read (magic, the
// source itself, a checksum): a malformed or foreign file is rebuilt, never
// trusted.
#pragma once
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "nabla/kernels/opencl/cl_check.h"

namespace nabla::opencl {

// One kernel of a built program. cl_kernel arguments are state: set them and
// enqueue under `mu`.
struct CompiledKernel {
  cl_program program = nullptr;
  cl_kernel kernel = nullptr;
  std::mutex mu;
  ~CompiledKernel();
};

// The kernel `kernel_name` of the program for `key` on device `index`:
// found in memory, else built from the binary cached on disk, else compiled
// from make_source() (called only then).
std::shared_ptr<CompiledKernel> get_kernel(int index, const std::string& key, const char* kernel_name,
                                           const std::function<std::string()>& make_source);

}  // namespace nabla::opencl

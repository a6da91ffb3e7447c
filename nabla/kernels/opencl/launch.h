// Launching a device C kernel (kernels/device/device_c.h) on an OpenCL
// device: the source rendered with the OpenCL prelude and the caller's
// typedefs, built once (program_cache.h), its arguments set in order, and
// the kernel enqueued on the device's compute queue. A kernel writer's whole
// host side is then a few lines:
//
//   Launch k(dev, "softmax|" + key, "nb_softmax", [&] { return device_c_source({{"T", t}}, kSoftmax); });
//   k.arg(out).arg(x).arg(rows).arg(cols).run(rows);
#pragma once
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "nabla/core/tensor.h"
#include "nabla/kernels/opencl/program_cache.h"
#include "nabla/kernels/opencl/runtime.h"

namespace nabla::opencl {

// A typedef the kernel's source uses: {"T", kFloat32} -> "typedef float T;".
using TypeDef = std::pair<const char*, DType>;

// The OpenCL C program for a device C `body`: the fp64 pragma, the prelude
// (device C's macros and the elementwise math primitives) and the typedefs.
std::string device_c_source(std::initializer_list<TypeDef> types, std::string_view body);

// An Error naming `op` unless the device's kernels take dtype `t` (OpenCL C
// has a type for it; float64 needs cl_khr_fp64).
void check_dtype(const char* op, DType t, const DeviceContext& dev);

// One launch of one kernel. Holds the kernel's lock from construction to
// run(), since cl_kernel arguments are state shared by every thread: prepare
// the inputs (dense(), other ops) before constructing it, and call run() once.
class Launch {
 public:
  Launch(DeviceContext& dev, const std::string& key, const char* kernel_name,
         const std::function<std::string()>& make_source, const char* op);

  // A tensor: two arguments, its buffer and its element offset (long).
  Launch& arg(const Tensor& t);
  Launch& arg(int64_t v);  // long
  Launch& arg(double v);   // double
  Launch& arg(float v);    // float
  Launch& arg_ulong(uint64_t v);
  // A number as the kernel's type `t` (float, double, or an integer type).
  Launch& arg_as(DType t, double v);
  // Work-group shared memory of `bytes` (a __local pointer argument).
  Launch& local(std::size_t bytes);

  // Enqueues `global` work items (nothing when 0), in groups of `local_size`
  // (0: the implementation chooses; else `global` is rounded up to a multiple).
  void run(std::size_t global, std::size_t local_size = 0);

 private:
  Launch& set(std::size_t size, const void* value);
  DeviceContext& dev_;
  std::shared_ptr<CompiledKernel> compiled_;
  std::unique_lock<std::mutex> lock_;
  const char* op_;
  unsigned arg_ = 0;
};

// Tensor `t` as a contiguous tensor on its device (itself when it already
// is), for kernels that index their inputs densely. Runs no autograd.
Tensor dense(const Tensor& t);

}  // namespace nabla::opencl

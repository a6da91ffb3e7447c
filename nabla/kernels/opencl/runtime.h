// The OpenCL device runtime (internal to nabla/kernels/opencl): the devices
// found at first use, each with its context, in-order queues and caching
// allocator. The Backend of core/backend.h (runtime.cpp) and the kernels are
// built on it. A tensor's storage handle is its cl_mem; its offset travels to
// kernels as an argument.
#pragma once
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>

#include "nabla/core/tensor.h"
#include "nabla/kernels/opencl/caching_allocator.h"
#include "nabla/kernels/opencl/cl_check.h"

namespace nabla::opencl {

struct DeviceContext {
  int index = 0;
  cl_platform_id platform = nullptr;
  cl_device_id id = nullptr;
  cl_context context = nullptr;  // shared by the devices of one platform
  std::string name, vendor, driver_version, platform_name;
  int64_t global_memory = 0;     // CL_DEVICE_GLOBAL_MEM_SIZE
  int64_t max_allocation = 0;    // CL_DEVICE_MAX_MEM_ALLOC_SIZE
  bool fp64 = false;             // cl_khr_fp64 (PoCL has it)
  CachingAllocator* allocator = nullptr;

  // Queue 0 runs ops; Backend::new_queue adds more (copies beside compute).
  cl_command_queue queue(int id);
  int add_queue();
  std::mutex queues_mu;
  std::deque<cl_command_queue> queues;
};

// The devices present (enumerated once, at first call; 0 when none).
int device_count();
// Why there is none (empty when there is one).
std::string unavailable_reason_text();
// The device of `index`; an Error naming `api` when absent.
DeviceContext& device(int index, const char* api = "opencl");

// The OpenCL C type that holds a dtype's elements (bool as a 0/1 uchar);
// null for the dtypes kernels do not take (float16, bfloat16).
const char* c_type(DType t);

inline cl_mem mem_of(const Tensor& t) { return static_cast<cl_mem>(t.impl()->storage->handle()); }

}  // namespace nabla::opencl

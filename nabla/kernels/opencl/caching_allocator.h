// Device memory for one OpenCL device: cl_mem buffers from the shared caching
// allocator (core/caching_device_allocator.h), so that a training step in
// steady state creates no buffer. The device's memory is counted there too
// because drivers create buffers lazily (PoCL among them): a buffer past the
// device's memory would fail later, in a kernel, instead of at allocation.
#pragma once
#include <cstdint>
#include <string>

#include "nabla/core/caching_device_allocator.h"
#include "nabla/kernels/opencl/cl_check.h"
#include "nabla/opencl.h"

namespace nabla::opencl {

class CachingAllocator final : public CachingDeviceAllocator {
 public:
  CachingAllocator(cl_context context, std::string device_text, int64_t global_memory, int64_t max_allocation)
      : CachingDeviceAllocator(std::move(device_text), global_memory, max_allocation, "CL_DEVICE_MAX_MEM_ALLOC_SIZE"),
        context_(context) {}

 private:
  void* driver_allocate(std::size_t bytes) override;  // a cl_mem
  // clReleaseMemObject waits for the commands that use the buffer.
  void driver_free(void* buffer) noexcept override { clReleaseMemObject(static_cast<cl_mem>(buffer)); }

  cl_context context_;
};

}  // namespace nabla::opencl

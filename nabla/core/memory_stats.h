// The counts a device's caching allocator keeps (core/caching_device_allocator.h),
// shared by the OpenCL and CUDA backends' public faces (opencl::MemoryStats,
// cuda::MemoryStats).
#pragma once
#include <cstdint>

namespace nabla {

struct DeviceMemoryStats {
  int64_t driver_allocations = 0;   // blocks obtained from the driver so far (clCreateBuffer, cuMemAlloc)
  int64_t driver_frees = 0;         // blocks released back to the driver
  int64_t bytes_reserved = 0;       // held from the driver now (in use or cached)
  int64_t bytes_in_use = 0;         // handed out to tensors now
  int64_t peak_bytes_reserved = 0;
  int64_t failed_allocations = 0;   // driver refusals (each retried once after emptying the cache)
};

}  // namespace nabla

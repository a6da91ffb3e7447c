#include "nabla/kernels/opencl/caching_allocator.h"

namespace nabla::opencl {

void* CachingAllocator::driver_allocate(std::size_t bytes) {
  cl_int err = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(context_, CL_MEM_READ_WRITE, bytes, nullptr, &err);
  if (!buffer && (err == CL_SUCCESS || is_out_of_memory(err))) return nullptr;  // emptied and retried
  check(err, "clCreateBuffer", device_text().c_str());
  return buffer;
}

}  // namespace nabla::opencl

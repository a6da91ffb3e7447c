// Device memory for one OpenCL device: cl_mem buffers cached by size class,
// so that a training step in steady state creates no buffer (counted in
// MemoryStats). When the driver refuses a buffer (or the device's memory would
// be exceeded), the cache is emptied and the request retried once; then an
// OutOfMemoryError says what was asked for and what the device has.
#pragma once
#include <cstdint>
#include <map>
#include <mutex>
#include <unordered_map>

#include "nabla/core/allocator.h"
#include "nabla/kernels/opencl/cl_check.h"
#include "nabla/opencl.h"

namespace nabla::opencl {

class CachingAllocator final : public Allocator {
 public:
  CachingAllocator(cl_context context, std::string device_text, int64_t global_memory, int64_t max_allocation)
      : context_(context), device_text_(std::move(device_text)), global_memory_(global_memory),
        max_allocation_(max_allocation) {}
  void* allocate(std::size_t nbytes) override;  // a cl_mem
  void deallocate(void* buffer, std::size_t nbytes) noexcept override;
  void empty_cache();
  MemoryStats stats();
  // The size class a request is served from (>= nbytes; 512 bytes at least).
  static std::size_t size_class(std::size_t nbytes);

 private:
  cl_mem create(std::size_t bytes, cl_int* err);
  void release_cached_locked();

  cl_context context_;
  std::string device_text_;  // "opencl:0 (pthread-...)" for messages
  int64_t global_memory_, max_allocation_;
  std::mutex mu_;
  std::multimap<std::size_t, cl_mem> free_;          // cached: size class -> buffer
  std::unordered_map<cl_mem, std::size_t> in_use_;  // handed out: buffer -> size class
  MemoryStats stats_;
};

}  // namespace nabla::opencl

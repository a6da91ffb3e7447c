#include "nabla/kernels/opencl/caching_allocator.h"

#include <algorithm>
#include <bit>

namespace nabla::opencl {

// Up to 4 KiB: multiples of 512 bytes; above: eight classes per power of two
// (at most 12.5% of a buffer unused), so a buffer freed by one step serves
// the same request in the next.
std::size_t CachingAllocator::size_class(std::size_t n) {
  if (n <= 4096) return std::max<std::size_t>(512, (n + 511) / 512 * 512);
  const std::size_t step = std::bit_floor(n - 1) / 8;
  return (n + step - 1) / step * step;
}

cl_mem CachingAllocator::create(std::size_t bytes, cl_int* err) {
  return clCreateBuffer(context_, CL_MEM_READ_WRITE, bytes, nullptr, err);
}

void* CachingAllocator::allocate(std::size_t nbytes) {
  const std::size_t bytes = size_class(nbytes);
  std::lock_guard lock(mu_);
  if (auto it = free_.find(bytes); it != free_.end()) {
    cl_mem buffer = it->second;
    free_.erase(it);
    in_use_.emplace(buffer, bytes);
    stats_.bytes_in_use += static_cast<int64_t>(bytes);
    return buffer;
  }
  if (static_cast<int64_t>(bytes) > max_allocation_)
    throw OutOfMemoryError(device_text_ + ": cannot allocate " + std::to_string(nbytes) +
                               " bytes: the device's largest buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE) is " +
                               std::to_string(max_allocation_) + " bytes",
                           nbytes);
  // The device's memory is counted here because drivers create buffers lazily
  // (PoCL among them): a buffer past the device's memory would fail later, in
  // a kernel, instead of here.
  auto fits = [&] { return stats_.bytes_reserved + static_cast<int64_t>(bytes) <= global_memory_; };
  cl_int err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
  cl_mem buffer = fits() ? create(bytes, &err) : nullptr;
  if (!buffer && (err == CL_SUCCESS || is_out_of_memory(err))) {
    ++stats_.failed_allocations;
    release_cached_locked();
    err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    buffer = fits() ? create(bytes, &err) : nullptr;
    if (!buffer && (err == CL_SUCCESS || is_out_of_memory(err)))
      throw OutOfMemoryError(device_text_ + ": out of memory: tried to allocate " + std::to_string(nbytes) +
                                 " bytes with " + std::to_string(stats_.bytes_in_use) + " of " +
                                 std::to_string(global_memory_) +
                                 " bytes in use by tensors (the cache was emptied and the allocation retried)",
                             nbytes);
  }
  check(err, "clCreateBuffer", device_text_.c_str());
  ++stats_.driver_allocations;
  stats_.bytes_reserved += static_cast<int64_t>(bytes);
  stats_.bytes_in_use += static_cast<int64_t>(bytes);
  stats_.peak_bytes_reserved = std::max(stats_.peak_bytes_reserved, stats_.bytes_reserved);
  in_use_.emplace(buffer, bytes);
  return buffer;
}

// Work still queued may read the buffer: it is only reused by work enqueued
// later on the same in-order queue, and clReleaseMemObject waits for the
// commands that use it.
void CachingAllocator::deallocate(void* p, std::size_t) noexcept {
  cl_mem buffer = static_cast<cl_mem>(p);
  std::lock_guard lock(mu_);
  auto it = in_use_.find(buffer);
  if (it == in_use_.end()) return;  // not ours: nothing safe to do in a destructor
  stats_.bytes_in_use -= static_cast<int64_t>(it->second);
  free_.emplace(it->second, buffer);
  in_use_.erase(it);
}

void CachingAllocator::release_cached_locked() {
  for (auto& [bytes, buffer] : free_) {
    clReleaseMemObject(buffer);
    stats_.bytes_reserved -= static_cast<int64_t>(bytes);
    ++stats_.driver_frees;
  }
  free_.clear();
}

void CachingAllocator::empty_cache() {
  std::lock_guard lock(mu_);
  release_cached_locked();
}

MemoryStats CachingAllocator::stats() {
  std::lock_guard lock(mu_);
  return stats_;
}

}  // namespace nabla::opencl

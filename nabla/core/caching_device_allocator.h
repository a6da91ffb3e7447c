// The caching allocator of one device, for any backend (OpenCL buffers, CUDA
// device memory, CUDA pinned host memory): blocks are rounded to a size class
// and, once freed, cached per stream, so that a training step in steady state
// asks the driver for nothing (counted in DeviceMemoryStats). When the driver
// refuses a block (or the device's memory would be exceeded), the cache is
// emptied and the request retried once; then an OutOfMemoryError says what was
// asked for and what the device has.
//
// A backend derives from it and supplies the driver calls (driver_allocate,
// driver_free). Blocks are reused only by work on the stream they were last
// allocated for: work on one in-order stream runs after the work that used
// the block before it was freed, so no event is needed to reuse it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "nabla/core/allocator.h"
#include "nabla/core/memory_stats.h"

namespace nabla {

class CachingDeviceAllocator : public Allocator {
 public:
  // device_text names the device in messages ("opencl:0 (pthread-...)");
  // memory is the device's size: requests past it fail here, before the driver
  // (some drivers create buffers lazily and would fail later, in a kernel);
  // one block may not pass max_block bytes (max_block_name says which limit
  // that is, e.g. "CL_DEVICE_MAX_MEM_ALLOC_SIZE").
  CachingDeviceAllocator(std::string device_text, int64_t memory, int64_t max_block, std::string max_block_name)
      : device_text_(std::move(device_text)), memory_(memory), max_block_(max_block),
        max_block_name_(std::move(max_block_name)) {}
  ~CachingDeviceAllocator() override = default;

  void* allocate(std::size_t nbytes) final;
  void deallocate(void* block, std::size_t nbytes) noexcept final;
  // Returns every cached (free) block to the driver.
  void empty_cache();
  DeviceMemoryStats stats();
  // Whether `block` is a block this allocator handed out and still holds.
  bool owns(const void* block);
  // The size class a request is served from (>= nbytes; 512 bytes at least).
  static std::size_t size_class(std::size_t nbytes);

 protected:
  // A new block of `bytes` from the driver, or null when the driver is out of
  // memory (then the cache is emptied and the request retried). Any other
  // failure throws an Error naming the driver call.
  virtual void* driver_allocate(std::size_t bytes) = 0;
  virtual void driver_free(void* block) noexcept = 0;
  // Called before cached blocks go back to the driver, with the allocator's
  // lock held (CUDA waits there for the work that may still use them).
  virtual void before_release() noexcept {}
  // The stream the calling thread allocates for (0, the default queue, unless
  // the backend says otherwise).
  virtual int current_stream() const { return 0; }
  const std::string& device_text() const { return device_text_; }

 private:
  struct Block {
    std::size_t bytes;
    int stream;
  };
  void release_cached_locked();

  std::string device_text_;
  int64_t memory_, max_block_;
  std::string max_block_name_;
  std::mutex mu_;
  std::multimap<std::pair<int, std::size_t>, void*> free_;  // cached: (stream, size class) -> block
  std::unordered_map<void*, Block> in_use_;                  // handed out
  DeviceMemoryStats stats_;
};

}  // namespace nabla

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
//
// Private pools (CUDA graphs, PyTorch's graph memory pool): while a thread
// captures a CUDA graph, its allocations come from a pool of the graph's
// (begin_pool); blocks of a pool, once freed, go back to that pool, never to
// the shared cache, because the graph's replays write them again whoever
// would hold them. release_pool (the graph destroyed) hands the pool's free
// blocks to the shared cache, and its blocks still in use follow when freed.
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

  // A new private pool (an id > 0), from which the calling thread allocates
  // until end_pool(); thread-local, so other threads keep the shared cache.
  int begin_pool();
  void end_pool();
  // The pool is no longer needed (its graph is destroyed): its free blocks
  // go to the shared cache now, its blocks in use when they are freed.
  void release_pool(int pool);
  // Blocks a pool holds (in use or free there); 0 for a released pool.
  int64_t pool_bytes(int pool);

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
    int pool;  // 0: the shared cache; else a private pool's id
  };
  struct Pool {
    std::multimap<std::pair<int, std::size_t>, void*> free;  // as free_, for this pool only
    int64_t bytes = 0;                                        // its blocks, in use or free
  };
  void release_cached_locked();
  // The calling thread's current pool (0: the shared cache).
  int current_pool() const;

  std::string device_text_;
  int64_t memory_, max_block_;
  std::string max_block_name_;
  std::mutex mu_;
  std::multimap<std::pair<int, std::size_t>, void*> free_;  // cached: (stream, size class) -> block
  std::unordered_map<void*, Block> in_use_;                  // handed out
  DeviceMemoryStats stats_;
  std::map<int, Pool> pools_;  // live private pools
  int next_pool_ = 1;
};

}  // namespace nabla

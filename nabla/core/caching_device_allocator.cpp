#include "nabla/core/caching_device_allocator.h"

#include <algorithm>
#include <bit>

namespace nabla {

namespace {
// The pool the calling thread allocates from: (allocator, pool id).
thread_local const CachingDeviceAllocator* t_pool_owner = nullptr;
thread_local int t_pool = 0;
}  // namespace

int CachingDeviceAllocator::current_pool() const { return t_pool_owner == this ? t_pool : 0; }

int CachingDeviceAllocator::begin_pool() {
  std::lock_guard lock(mu_);
  const int id = next_pool_++;
  pools_[id];
  t_pool_owner = this;
  t_pool = id;
  return id;
}

void CachingDeviceAllocator::end_pool() {
  if (t_pool_owner == this) {
    t_pool_owner = nullptr;
    t_pool = 0;
  }
}

void CachingDeviceAllocator::release_pool(int pool) {
  std::lock_guard lock(mu_);
  auto it = pools_.find(pool);
  if (it == pools_.end()) return;
  // Free blocks join the shared cache; blocks in use are marked shared, so
  // that deallocate puts them there.
  free_.merge(it->second.free);
  for (auto& [block, b] : in_use_)
    if (b.pool == pool) b.pool = 0;
  pools_.erase(it);
}

int64_t CachingDeviceAllocator::pool_bytes(int pool) {
  std::lock_guard lock(mu_);
  auto it = pools_.find(pool);
  return it == pools_.end() ? 0 : it->second.bytes;
}

// Up to 4 KiB: multiples of 512 bytes; above: eight classes per power of two
// (at most 12.5% of a block unused), so a block freed by one step serves the
// same request in the next.
std::size_t CachingDeviceAllocator::size_class(std::size_t n) {
  if (n <= 4096) return std::max<std::size_t>(512, (n + 511) / 512 * 512);
  const std::size_t step = std::bit_floor(n - 1) / 8;
  return (n + step - 1) / step * step;
}

void* CachingDeviceAllocator::allocate(std::size_t nbytes) {
  const std::size_t bytes = size_class(nbytes);
  const int stream = current_stream();
  const int pool_id = current_pool();
  std::lock_guard lock(mu_);
  Pool* pool = nullptr;
  if (pool_id != 0) {
    auto p = pools_.find(pool_id);
    if (p != pools_.end()) pool = &p->second;
  }
  // A private pool reuses its own free blocks first; a block it takes from
  // the shared cache or the driver becomes its own.
  if (pool) {
    if (auto it = pool->free.find({stream, bytes}); it != pool->free.end()) {
      void* block = it->second;
      pool->free.erase(it);
      in_use_.emplace(block, Block{bytes, stream, pool_id});
      stats_.bytes_in_use += static_cast<int64_t>(bytes);
      return block;
    }
  }
  if (auto it = free_.find({stream, bytes}); it != free_.end()) {
    void* block = it->second;
    free_.erase(it);
    in_use_.emplace(block, Block{bytes, stream, pool ? pool_id : 0});
    if (pool) pool->bytes += static_cast<int64_t>(bytes);
    stats_.bytes_in_use += static_cast<int64_t>(bytes);
    return block;
  }
  if (static_cast<int64_t>(bytes) > max_block_)
    throw OutOfMemoryError(device_text_ + ": cannot allocate " + std::to_string(nbytes) + " bytes: the device's largest " +
                               "block (" + max_block_name_ + ") is " + std::to_string(max_block_) + " bytes",
                           nbytes);
  auto fits = [&] { return stats_.bytes_reserved + static_cast<int64_t>(bytes) <= memory_; };
  void* block = fits() ? driver_allocate(bytes) : nullptr;
  if (!block) {
    ++stats_.failed_allocations;
    release_cached_locked();
    block = fits() ? driver_allocate(bytes) : nullptr;
    if (!block)
      throw OutOfMemoryError(device_text_ + ": out of memory: tried to allocate " + std::to_string(nbytes) +
                                 " bytes with " + std::to_string(stats_.bytes_in_use) + " of " +
                                 std::to_string(memory_) +
                                 " bytes in use by tensors (the cache was emptied and the allocation retried)",
                             nbytes);
  }
  ++stats_.driver_allocations;
  stats_.bytes_reserved += static_cast<int64_t>(bytes);
  stats_.bytes_in_use += static_cast<int64_t>(bytes);
  stats_.peak_bytes_reserved = std::max(stats_.peak_bytes_reserved, stats_.bytes_reserved);
  in_use_.emplace(block, Block{bytes, stream, pool ? pool_id : 0});
  if (pool) pool->bytes += static_cast<int64_t>(bytes);
  return block;
}

// Work still queued may use the block: it goes back to its stream's cache and
// is only handed out for work enqueued later on that in-order stream.
void CachingDeviceAllocator::deallocate(void* p, std::size_t) noexcept {
  std::lock_guard lock(mu_);
  auto it = in_use_.find(p);
  if (it == in_use_.end()) return;  // not ours: nothing safe to do in a destructor
  stats_.bytes_in_use -= static_cast<int64_t>(it->second.bytes);
  // A private pool's block stays the pool's: its graph writes it at each replay.
  auto pool = it->second.pool != 0 ? pools_.find(it->second.pool) : pools_.end();
  auto& cache = pool != pools_.end() ? pool->second.free : free_;
  cache.emplace(std::pair{it->second.stream, it->second.bytes}, p);
  in_use_.erase(it);
}

void CachingDeviceAllocator::release_cached_locked() {
  if (free_.empty()) return;
  before_release();
  for (auto& [key, block] : free_) {
    driver_free(block);
    stats_.bytes_reserved -= static_cast<int64_t>(key.second);
    ++stats_.driver_frees;
  }
  free_.clear();
}

void CachingDeviceAllocator::empty_cache() {
  std::lock_guard lock(mu_);
  release_cached_locked();
}

DeviceMemoryStats CachingDeviceAllocator::stats() {
  std::lock_guard lock(mu_);
  return stats_;
}

bool CachingDeviceAllocator::owns(const void* block) {
  std::lock_guard lock(mu_);
  return in_use_.count(const_cast<void*>(block)) != 0;
}

}  // namespace nabla

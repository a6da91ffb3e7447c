// Caching CPU allocator: 64-byte aligned blocks rounded up to size classes
// (powers of two split in quarters above 4 KiB); freed blocks go to a per-class
// free list. Blocks above 1 GiB are not cached.
#include "nabla/core/allocator.h"

#include <bit>
#include <cstdlib>
#include <mutex>
#include <array>
#include <atomic>
#include <vector>

#include "nabla/core/error.h"

namespace nabla {
namespace {

constexpr std::size_t kAlignment = 64;
constexpr std::size_t kMaxCached = std::size_t(1) << 30;

// Size classes: powers of two from 64 B to 4 KiB, then four per power of two.
struct SizeClass {
  std::size_t bytes;
  std::size_t index;  // into the free-list array
};
SizeClass size_class(std::size_t n) {
  if (n <= 64) return {64, 0};
  if (n <= 4096) {
    std::size_t b = std::bit_ceil(n);
    return {b, static_cast<std::size_t>(std::countr_zero(b)) - 6};  // 64 -> 0 ... 4096 -> 6
  }
  std::size_t p = std::bit_floor(n);
  std::size_t quarter = p / 4;
  std::size_t k = (n - p + quarter - 1) / quarter;  // 0..4 quarters above p
  std::size_t e = static_cast<std::size_t>(std::countr_zero(p));
  if (k == 4) {
    k = 0;
    e += 1;
    p *= 2;
  }
  return {p + k * quarter, 7 + (e - 12) * 4 + k};
}
constexpr std::size_t kNumClasses = 7 + (64 - 12) * 4 + 4;

// Blocks of up to 4 KiB (classes 0..6) also go through a small per-thread
// cache that needs no lock: that is most of an eager op's allocations.
constexpr std::size_t kThreadCachedClasses = 7;
constexpr std::size_t kThreadCacheDepth = 32;

// Trivially constructible and destructible, so reading it costs no TLS
// wrapper call; a separate flusher returns its blocks when the thread exits.
struct ThreadCache {
  std::array<std::array<void*, kThreadCacheDepth>, kThreadCachedClasses> blocks;
  std::array<uint8_t, kThreadCachedClasses> count;
};
thread_local ThreadCache t_cache;
thread_local bool t_cache_alive = false;
thread_local bool t_cache_dead = false;  // the thread is exiting: no more caching
struct ThreadCacheFlusher {
  ~ThreadCacheFlusher();
};
void activate_thread_cache() {
  static thread_local ThreadCacheFlusher flusher;  // constructed once per thread
  (void)&flusher;
  t_cache_alive = true;
}

class CachingCpuAllocator final : public Allocator {
 public:
  void* allocate(std::size_t nbytes) override {
    SizeClass sc = size_class(nbytes == 0 ? 1 : nbytes);
    std::size_t cls = sc.bytes;
    if (sc.index < kThreadCachedClasses && t_cache_alive && t_cache.count[sc.index] > 0)
      return t_cache.blocks[sc.index][--t_cache.count[sc.index]];
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto& list = free_[sc.index];
      if (!list.empty()) {
        void* p = list.back();
        list.pop_back();
        return p;
      }
    }
    void* p = std::aligned_alloc(kAlignment, cls);
    if (!p) fail("CPU allocator: out of memory allocating ", nbytes, " bytes");
    system_allocations_.fetch_add(1, std::memory_order_relaxed);
    note_reserved(cls);
    return p;
  }
  void deallocate(void* p, std::size_t nbytes) override {
    if (!p) return;
    SizeClass sc = size_class(nbytes == 0 ? 1 : nbytes);
    std::size_t cls = sc.bytes;
    if (cls > kMaxCached) {
      std::free(p);
      reserved_.fetch_sub(cls, std::memory_order_relaxed);
      return;
    }
    if (sc.index < kThreadCachedClasses) {
      if (!t_cache_alive && !t_cache_dead) activate_thread_cache();
      if (t_cache_alive && t_cache.count[sc.index] < kThreadCacheDepth) {
        t_cache.blocks[sc.index][t_cache.count[sc.index]++] = p;
        return;
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    free_[sc.index].push_back(p);
  }
  // Returns a thread's cached blocks to the shared lists (at thread exit).
  void take_back(ThreadCache& c) {
    std::lock_guard<std::mutex> lock(mu_);
    for (std::size_t k = 0; k < kThreadCachedClasses; ++k) {
      for (uint8_t i = 0; i < c.count[k]; ++i) free_[k].push_back(c.blocks[k][i]);
      c.count[k] = 0;
    }
  }
  AllocatorStats stats() {
    AllocatorStats s;
    s.system_allocations = system_allocations_.load();
    s.bytes_reserved = reserved_.load();
    s.peak_bytes_reserved = peak_.load();
    return s;
  }
  void empty_cache() {
    if (t_cache_alive) take_back(t_cache);
    std::lock_guard<std::mutex> lock(mu_);
    std::size_t freed = 0;
    for (std::size_t k = 0; k < free_.size(); ++k) {
      // Skip empty lists: class_bytes() of the top classes (2^64 and up) overflows.
      if (free_[k].empty()) continue;
      for (void* p : free_[k]) std::free(p);
      freed += free_[k].size() * class_bytes(k);
      free_[k].clear();
    }
    reserved_.fetch_sub(freed, std::memory_order_relaxed);
  }

 private:
  static std::size_t class_bytes(std::size_t index) {
    if (index < 7) return std::size_t(64) << index;
    std::size_t e = 12 + (index - 7) / 4, k = (index - 7) % 4;
    return (std::size_t(1) << e) + k * (std::size_t(1) << (e - 2));
  }
  void note_reserved(std::size_t cls) {
    uint64_t now = reserved_.fetch_add(cls, std::memory_order_relaxed) + cls;
    uint64_t peak = peak_.load(std::memory_order_relaxed);
    while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
  }

  std::mutex mu_;
  std::array<std::vector<void*>, kNumClasses> free_;
  std::atomic<uint64_t> system_allocations_{0}, reserved_{0}, peak_{0};
};

CachingCpuAllocator& cpu_allocator() {
  static auto* a = new CachingCpuAllocator();  // never destroyed: tensors may outlive statics
  return *a;
}

ThreadCacheFlusher::~ThreadCacheFlusher() {
  t_cache_alive = false;
  t_cache_dead = true;
  cpu_allocator().take_back(t_cache);
}

Allocator* g_allocators[kNumDeviceTypes] = {};

}  // namespace

Allocator* allocator_for(Device d) {
  if (d.type == DeviceType::CPU) return &cpu_allocator();
  Allocator* a = g_allocators[static_cast<int>(d.type)];
  NABLA_CHECK(a, "allocator: device ", d, " is not available in this build of nabla");
  return a;
}

void register_allocator(DeviceType t, Allocator* a) { g_allocators[static_cast<int>(t)] = a; }

AllocatorStats cpu_allocator_stats() { return cpu_allocator().stats(); }

void* allocate_small_object(std::size_t nbytes) { return cpu_allocator().allocate(nbytes); }
void deallocate_small_object(void* p, std::size_t nbytes) { cpu_allocator().deallocate(p, nbytes); }
void cpu_allocator_empty_cache() { cpu_allocator().empty_cache(); }

}  // namespace nabla

// Caching CPU allocator: 64-byte aligned blocks rounded up to size classes
// (powers of two split in quarters above 4 KiB); freed blocks go to a per-class
// free list. Blocks above 1 GiB are not cached.
#include "nabla/core/allocator.h"

#include <bit>
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "nabla/core/error.h"

namespace nabla {
namespace {

constexpr std::size_t kAlignment = 64;
constexpr std::size_t kMaxCached = std::size_t(1) << 30;

std::size_t size_class(std::size_t n) {
  if (n <= 4096) return std::max<std::size_t>(64, std::bit_ceil(n));
  std::size_t p = std::bit_floor(n);
  std::size_t quarter = p / 4;
  return (n + quarter - 1) / quarter * quarter;
}

class CachingCpuAllocator final : public Allocator {
 public:
  void* allocate(std::size_t nbytes) override {
    std::size_t cls = size_class(nbytes == 0 ? 1 : nbytes);
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto& list = free_[cls];
      stats_.bytes_in_use += cls;
      stats_.peak_bytes_in_use = std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
      if (!list.empty()) {
        void* p = list.back();
        list.pop_back();
        stats_.cache_hits++;
        stats_.bytes_cached -= cls;
        return p;
      }
      stats_.system_allocations++;
    }
    void* p = std::aligned_alloc(kAlignment, cls);
    if (!p) {
      std::lock_guard<std::mutex> lock(mu_);
      stats_.bytes_in_use -= cls;
      fail("CPU allocator: out of memory allocating ", nbytes, " bytes");
    }
    return p;
  }
  void deallocate(void* p, std::size_t nbytes) override {
    if (!p) return;
    std::size_t cls = size_class(nbytes == 0 ? 1 : nbytes);
    std::lock_guard<std::mutex> lock(mu_);
    stats_.bytes_in_use -= cls;
    if (cls > kMaxCached) {
      std::free(p);
      return;
    }
    free_[cls].push_back(p);
    stats_.bytes_cached += cls;
  }
  AllocatorStats stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }
  void empty_cache() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [cls, list] : free_)
      for (void* p : list) std::free(p);
    free_.clear();
    stats_.bytes_cached = 0;
  }

 private:
  std::mutex mu_;
  std::unordered_map<std::size_t, std::vector<void*>> free_;
  AllocatorStats stats_;
};

CachingCpuAllocator& cpu_allocator() {
  static auto* a = new CachingCpuAllocator();  // never destroyed: tensors may outlive statics
  return *a;
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
void cpu_allocator_empty_cache() { cpu_allocator().empty_cache(); }

}  // namespace nabla

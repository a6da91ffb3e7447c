// Caching CPU allocator: 64-byte aligned blocks rounded up to size classes
// (powers of two split in quarters above 4 KiB); freed blocks go to a per-class
// free list. Blocks above 1 GiB are not cached.
#include "nabla/core/allocator.h"

#include <bit>
#include <cstdlib>
#include <mutex>
#include <array>
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

class CachingCpuAllocator final : public Allocator {
 public:
  void* allocate(std::size_t nbytes) override {
    SizeClass sc = size_class(nbytes == 0 ? 1 : nbytes);
    std::size_t cls = sc.bytes;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto& list = free_[sc.index];
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
    SizeClass sc = size_class(nbytes == 0 ? 1 : nbytes);
    std::size_t cls = sc.bytes;
    std::lock_guard<std::mutex> lock(mu_);
    stats_.bytes_in_use -= cls;
    if (cls > kMaxCached) {
      std::free(p);
      return;
    }
    free_[sc.index].push_back(p);
    stats_.bytes_cached += cls;
  }
  AllocatorStats stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }
  void empty_cache() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& list : free_) {
      for (void* p : list) std::free(p);
      list.clear();
    }
    stats_.bytes_cached = 0;
  }

 private:
  std::mutex mu_;
  std::array<std::vector<void*>, kNumClasses> free_;
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

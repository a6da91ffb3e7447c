// Caching CPU allocator: 64-byte aligned blocks rounded up to size classes
// (powers of two split in quarters above 4 KiB); freed blocks go to a per-class
// free list. Blocks above 1 GiB are not cached.
#include "nabla/core/allocator.h"

#include <unistd.h>

#include <bit>
#include <cstdlib>
#include <mutex>
#include <new>
#include <array>
#include <atomic>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "nabla/core/error.h"

namespace nabla {
namespace {

constexpr std::size_t kAlignment = 64;
constexpr std::size_t kMaxCached = std::size_t(1) << 30;
// No machine addresses more (x86-64 and AArch64 user space are 128 to 256
// TiB); refusing larger requests up front also keeps size_class() from
// overflowing near 2^64.
constexpr std::size_t kMaxBlock = std::size_t(1) << 48;

thread_local MemoryBudgetScope* t_budget = nullptr;

std::string human_bytes(std::size_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 6) v /= 1024, ++u;
  std::ostringstream os;
  os.precision(u == 0 ? 0 : 1);
  os << std::fixed << v << ' ' << units[u];
  return os.str();
}

[[noreturn]] void out_of_memory(std::size_t nbytes, const std::string& why) {
  throw OutOfMemoryError(detail::concat("cannot allocate ", nbytes, " bytes (", human_bytes(nbytes), ") on cpu: ", why),
                         nbytes);
}

// Charges a block to the innermost budget scope of this thread.
void charge(MemoryBudgetScope& b, std::size_t nbytes, std::size_t cls) {
  const int64_t c = static_cast<int64_t>(cls);
  if (b.used + c > b.limit)
    out_of_memory(nbytes, detail::concat("it would take ", b.what, " past its limit of ", b.limit, " bytes (",
                                         human_bytes(static_cast<std::size_t>(b.limit)), "; ", std::max<int64_t>(b.used, 0),
                                         " bytes in use by it)"));
  b.used += c;
}

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

// On the heap, reached through one thread-local pointer (null until the
// thread's first free, and again once it exits): a 1.8 KB thread_local array
// would not fit the static TLS that glibc keeps for libraries loaded by
// dlopen (initial-exec TLS, see CMakeLists.txt), and Python's `import nabla`
// loads libnabla.so that way. A separate flusher returns its blocks when the
// thread exits.
struct ThreadCache {
  std::array<std::array<void*, kThreadCacheDepth>, kThreadCachedClasses> blocks;
  std::array<uint8_t, kThreadCachedClasses> count;
};
thread_local ThreadCache* t_cache = nullptr;
thread_local bool t_cache_dead = false;  // the thread is exiting: no more caching
struct ThreadCacheFlusher {
  ~ThreadCacheFlusher();
};
void activate_thread_cache() {
  static thread_local ThreadCacheFlusher flusher;  // constructed once per thread
  (void)&flusher;
  t_cache = new (std::nothrow) ThreadCache{};  // none: this thread goes without a cache
}

class CachingCpuAllocator final : public Allocator {
 public:
  void* allocate(std::size_t nbytes) override {
    if (nbytes > kMaxBlock) [[unlikely]]
      out_of_memory(nbytes, detail::concat("more than any address space holds (the limit is ", kMaxBlock, " bytes)"));
    SizeClass sc = size_class(nbytes == 0 ? 1 : nbytes);
    std::size_t cls = sc.bytes;
    if (t_budget) [[unlikely]] charge(*t_budget, nbytes, cls);
    if (sc.index < kThreadCachedClasses && t_cache && t_cache->count[sc.index] > 0)
      return t_cache->blocks[sc.index][--t_cache->count[sc.index]];
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
    if (!p) {
      empty_cache();  // cached blocks of other sizes may make room
      p = std::aligned_alloc(kAlignment, cls);
    }
    if (!p) {
      if (t_budget) t_budget->used -= static_cast<int64_t>(cls);
      out_of_memory(nbytes, "the system has no memory left for it");
    }
    system_allocations_.fetch_add(1, std::memory_order_relaxed);
    note_reserved(cls);
    return p;
  }
  void deallocate(void* p, std::size_t nbytes) noexcept override {
    if (!p) return;
    SizeClass sc = size_class(nbytes == 0 ? 1 : nbytes);
    std::size_t cls = sc.bytes;
    if (t_budget) [[unlikely]] t_budget->used -= static_cast<int64_t>(cls);
    if (cls > kMaxCached) {
      release(p, cls);
      return;
    }
    if (sc.index < kThreadCachedClasses) {
      if (!t_cache && !t_cache_dead) activate_thread_cache();
      if (t_cache && t_cache->count[sc.index] < kThreadCacheDepth) {
        t_cache->blocks[sc.index][t_cache->count[sc.index]++] = p;
        return;
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    cache_locked(sc.index, p, cls);
  }
  // Returns a thread's cached blocks to the shared lists (at thread exit).
  void take_back(ThreadCache& c) noexcept {
    std::lock_guard<std::mutex> lock(mu_);
    for (std::size_t k = 0; k < kThreadCachedClasses; ++k) {
      for (uint8_t i = 0; i < c.count[k]; ++i) cache_locked(k, c.blocks[k][i], class_bytes(k));
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
    if (t_cache) take_back(*t_cache);
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
  // Puts a free block on its class's list (mu_ held). Growing the list can
  // fail when memory is short, and this runs in destructors, maybe during
  // unwinding: then the block goes back to the system instead.
  void cache_locked(std::size_t index, void* p, std::size_t cls) noexcept {
    try {
      free_[index].push_back(p);
    } catch (...) {
      release(p, cls);
    }
  }
  void release(void* p, std::size_t cls) noexcept {
    std::free(p);
    reserved_.fetch_sub(cls, std::memory_order_relaxed);
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
  ThreadCache* cache = t_cache;
  t_cache = nullptr;
  t_cache_dead = true;
  if (cache) cpu_allocator().take_back(*cache);
  delete cache;
}

}  // namespace

Allocator* host_allocator() { return &cpu_allocator(); }

AllocatorStats cpu_allocator_stats() { return cpu_allocator().stats(); }

MemoryBudgetScope::MemoryBudgetScope(int64_t limit, const char* what) : limit(limit), what(what), prev_(t_budget) {
  t_budget = this;
}
MemoryBudgetScope::~MemoryBudgetScope() { t_budget = prev_; }

int64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(pages) * static_cast<int64_t>(page);
}

void* allocate_small_object(std::size_t nbytes) { return cpu_allocator().allocate(nbytes); }
void deallocate_small_object(void* p, std::size_t nbytes) { cpu_allocator().deallocate(p, nbytes); }
void cpu_allocator_empty_cache() { cpu_allocator().empty_cache(); }

}  // namespace nabla

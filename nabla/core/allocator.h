// Device memory allocators. The CPU one caches freed blocks by size class, so a
// training loop in steady state asks the system for no new memory.
#pragma once
#include <cstddef>
#include <cstdint>

#include "nabla/core/device.h"

namespace nabla {

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual void* allocate(std::size_t nbytes) = 0;
  virtual void deallocate(void* p, std::size_t nbytes) = 0;
};

// Counted only on the slow path (memory obtained from or returned to the
// system), so that serving an op from the cache touches no shared counter.
struct AllocatorStats {
  uint64_t system_allocations = 0;  // blocks obtained from the system
  uint64_t bytes_reserved = 0;      // held from the system now (in use or cached)
  uint64_t peak_bytes_reserved = 0;
};

// The allocator of a device type (CPU now; backends register theirs).
Allocator* allocator_for(Device d);
void register_allocator(DeviceType t, Allocator* a);

AllocatorStats cpu_allocator_stats();

// Small host objects made per op (TensorImpl, Storage) come from the caching
// allocator too: its per-thread cache is cheaper than malloc.
void* allocate_small_object(std::size_t nbytes);
void deallocate_small_object(void* p, std::size_t nbytes);
void cpu_allocator_empty_cache();  // returns cached blocks to the system

}  // namespace nabla

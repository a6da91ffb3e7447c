// Device memory allocators. The CPU one caches freed blocks by size class, so a
// training loop in steady state asks the system for no new memory.
#pragma once
#include <cstddef>
#include <cstdint>

#include "nabla/core/device.h"
#include "nabla/core/error.h"

namespace nabla {

// Memory that cannot be had: the system refused it, the size is beyond any
// address space, or a MemoryBudgetScope's limit would be passed. The message
// says how many bytes were asked for; make_empty() adds the op or API.
class OutOfMemoryError : public Error {
 public:
  OutOfMemoryError(const std::string& what, std::size_t bytes) : Error(what), bytes(bytes) {}
  std::size_t bytes;  // the request that failed
};

// allocate() throws OutOfMemoryError, never std::bad_alloc. deallocate() runs
// in destructors, also while an exception unwinds the stack: it never
// allocates nor throws.
class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual void* allocate(std::size_t nbytes) = 0;
  virtual void deallocate(void* p, std::size_t nbytes) noexcept = 0;
};

// While it lives, what this thread takes from the CPU allocator (net of what
// it gives back, size classes counted) may not pass `limit` bytes: past it,
// allocate() throws an OutOfMemoryError naming `what` (Session::run with
// SessionOptions::max_run_bytes). Scopes nest: the innermost one counts.
class MemoryBudgetScope {
 public:
  MemoryBudgetScope(int64_t limit, const char* what);
  ~MemoryBudgetScope();
  MemoryBudgetScope(const MemoryBudgetScope&) = delete;
  MemoryBudgetScope& operator=(const MemoryBudgetScope&) = delete;

  int64_t limit;
  int64_t used = 0;  // net bytes taken inside the scope (negative when it freed older blocks)
  const char* what;

 private:
  MemoryBudgetScope* prev_;
};

// The machine's physical memory in bytes (a default for memory limits).
int64_t physical_memory_bytes();

// Counted only on the slow path (memory obtained from or returned to the
// system), so that serving an op from the cache touches no shared counter.
struct AllocatorStats {
  uint64_t system_allocations = 0;  // blocks obtained from the system
  uint64_t bytes_reserved = 0;      // held from the system now (in use or cached)
  uint64_t peak_bytes_reserved = 0;
};

// The allocator of a device: the host's caching allocator for the CPU, the
// device's backend's otherwise (core/backend.h); an Error when the device is
// absent.
Allocator* allocator_for(Device d);
Allocator* host_allocator();

AllocatorStats cpu_allocator_stats();

// Small host objects made per op (TensorImpl, Storage) come from the caching
// allocator too: its per-thread cache is cheaper than malloc.
void* allocate_small_object(std::size_t nbytes);
void deallocate_small_object(void* p, std::size_t nbytes);
void cpu_allocator_empty_cache();  // returns cached blocks to the system

}  // namespace nabla

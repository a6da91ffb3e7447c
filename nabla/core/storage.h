// Storage: one block of device memory shared by a tensor and all its views:
// the device backend's opaque handle (a host pointer only on the CPU). It
// also carries the version counter that in-place ops bump, so autograd can tell
// when a tensor it saved was modified (see Note [Version counter]).
#pragma once
#include <cstddef>
#include <cstdint>

#include "nabla/core/allocator.h"
#include "nabla/core/device.h"
#include "nabla/core/ref.h"

namespace nabla {

class Storage : public RefCounted {
 public:
  // Allocates nbytes on device.
  Storage(std::size_t nbytes, Device device);
  // Allocates nbytes of host memory from `allocator` (a backend's pinned one).
  Storage(std::size_t nbytes, Allocator* allocator, bool pinned);
  // Wraps memory the caller owns (borrowed: never freed here).
  Storage(void* borrowed, std::size_t nbytes, Device device);
  ~Storage() override;

  static void* operator new(std::size_t n) { return allocate_small_object(n); }
  static void operator delete(void* p, std::size_t n) { deallocate_small_object(p, n); }

  // The backend's handle: a host pointer on the CPU, opaque elsewhere (only
  // the device's backend and its kernels interpret it).
  void* handle() const { return data_; }
  bool is_pinned() const { return pinned_; }
  bool is_borrowed() const { return allocator_ == nullptr; }  // the caller's memory
  std::size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }

  // Note [Version counter]: incremented by every in-place write through any view.
  uint32_t version() const { return version_; }
  void bump_version() { ++version_; }

 private:
  void* data_ = nullptr;
  std::size_t nbytes_ = 0;
  Device device_;
  Allocator* allocator_ = nullptr;  // null when borrowed
  uint32_t version_ = 0;
  bool pinned_ = false;  // page-locked host memory from a backend's pinned allocator
};

}  // namespace nabla

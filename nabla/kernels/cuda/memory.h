// CUDA memory through the shared caching allocator
// (core/caching_device_allocator.h): device memory (cuMemAlloc) per device,
// and pinned (page-locked) host memory (cuMemHostAlloc) from which copies run
// asynchronously. Neither asks the driver for memory in steady state.
#pragma once
#include "nabla/core/caching_device_allocator.h"
#include "nabla/kernels/cuda/runtime.h"

namespace nabla::cuda {

// A handle is a CUdeviceptr (cast to void*).
class DeviceAllocator final : public CachingDeviceAllocator {
 public:
  explicit DeviceAllocator(DeviceContext& device)
      : CachingDeviceAllocator(cuda::device_text(device), device.total_memory, device.total_memory, "its total memory"),
        device_(device) {}

 private:
  void* driver_allocate(std::size_t bytes) override;
  void driver_free(void* block) noexcept override;
  // Cached blocks may still be read by queued work on the stream that freed
  // them: the device finishes its work before they go back to the driver.
  void before_release() noexcept override;

  DeviceContext& device_;
};

// Page-locked host memory, portable to every device's context; a handle is
// the host pointer tensors read and write.
class PinnedHostAllocator final : public CachingDeviceAllocator {
 public:
  PinnedHostAllocator();

 private:
  void* driver_allocate(std::size_t bytes) override;
  void driver_free(void* block) noexcept override;
};

}  // namespace nabla::cuda

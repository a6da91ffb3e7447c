#include "nabla/kernels/cuda/memory.h"

namespace nabla::cuda {

void* DeviceAllocator::driver_allocate(std::size_t bytes) {
  device_.make_current();
  CUdeviceptr p = 0;
  CUresult r = driver().cuMemAlloc(&p, bytes);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) return nullptr;  // emptied and retried
  check(r, "cuMemAlloc", device_text() + ", " + std::to_string(bytes) + " bytes");
  return reinterpret_cast<void*>(static_cast<uintptr_t>(p));
}

// In a destructor's reach (deallocate never throws): failures are ignored,
// as a failing free can only follow an error already reported.
void DeviceAllocator::driver_free(void* block) noexcept {
  const Driver& drv = driver();
  if (drv.cuCtxSetCurrent(device_.context) != CUDA_SUCCESS) return;
  drv.cuMemFree(static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(block)));
}

void DeviceAllocator::before_release() noexcept {
  const Driver& drv = driver();
  if (drv.cuCtxSetCurrent(device_.context) == CUDA_SUCCESS) drv.cuCtxSynchronize();
}

// Limited by the machine's memory; one block may be as large.
PinnedHostAllocator::PinnedHostAllocator()
    : CachingDeviceAllocator("cuda pinned host memory", physical_memory_bytes(), physical_memory_bytes(),
                             "the machine's physical memory") {}

void* PinnedHostAllocator::driver_allocate(std::size_t bytes) {
  device(0, "Tensor::pin_memory").make_current();  // any context: the memory is portable
  void* p = nullptr;
  CUresult r = driver().cuMemHostAlloc(&p, bytes, CU_MEMHOSTALLOC_PORTABLE);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) return nullptr;
  check(r, "cuMemHostAlloc", std::to_string(bytes) + " bytes of pinned host memory");
  return p;
}

void PinnedHostAllocator::driver_free(void* block) noexcept {
  const Driver& drv = driver();
  if (drv.cuCtxSetCurrent(device(0).context) != CUDA_SUCCESS) return;
  drv.cuMemFreeHost(block);
}

}  // namespace nabla::cuda

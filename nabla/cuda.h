// The CUDA backend's public face: whether an NVIDIA GPU can be used, its
// memory statistics and cache. Tensors reach it through Device("cuda:0") and
// Tensor::to; everything else is the op table's (docs/devices.md, "CUDA").
// The backend lives in its own library, libnabla_cuda.so, loaded at first use
// (these functions, find_backend(DeviceType::CUDA), devices()): libnabla.so
// itself needs no CUDA library, and where the backend is not built, cannot be
// loaded or finds no driver or GPU, is_available() is false and
// unavailable_reason() says why.
#pragma once
#include <string>

#include "nabla/core/memory_stats.h"

namespace nabla::cuda {

// Whether nabla was built with the CUDA backend (NABLA_CUDA=ON, the toolkit
// found); a driver or a device may still be absent.
bool is_built();
// Whether at least one CUDA device is present and usable.
bool is_available();
int device_count();
// Why no device can be used, in one sentence ("nabla was built without
// CUDA ...", "libnabla_cuda.so could not be loaded: ...", "no NVIDIA driver:
// ...", "cuInit failed: CUDA_ERROR_NO_DEVICE ..."); empty when a device is
// present. For skip messages and errors.
std::string unavailable_reason();

// The caching allocator of one device (DESIGN.md, "Backends"): a training
// step in steady state asks the driver (cuMemAlloc) for no new memory. All
// zeros where no device is present.
using MemoryStats = DeviceMemoryStats;
MemoryStats memory_stats(int device = 0);
// Returns the cached (free) blocks of every device to the driver.
void empty_cache();
// Waits until the work queued on every CUDA device is done.
void synchronize();

}  // namespace nabla::cuda

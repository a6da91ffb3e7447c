// The OpenCL backend's public face: whether a device is present, its memory
// statistics and cache. Tensors reach it through Device("opencl:0") and
// Tensor::to; everything else is the op table's (docs/devices.md).
// In a build without OpenCL (NABLA_OPENCL=OFF) is_available() is false and
// unavailable_reason() says so.
#pragma once
#include <cstdint>
#include <string>

#include "nabla/core/memory_stats.h"

namespace nabla::opencl {

// Whether nabla was built with the OpenCL backend (PyTorch's
// torch.backends.cuda.is_built()); a device may still be absent.
bool is_built();
// Whether at least one OpenCL device (a GPU, or a CPU through PoCL) is present.
bool is_available();
int device_count();
// Why no device is present ("built without OpenCL", "no OpenCL platform
// found", ...): for skip messages and errors.
std::string unavailable_reason();

// The caching allocator of one device (DESIGN.md, "Backends"): a training
// step in steady state asks the driver for no new buffer.
using MemoryStats = DeviceMemoryStats;  // driver_allocations count clCreateBuffer calls
MemoryStats memory_stats(int device = 0);
// Returns the cached (free) buffers of every device to the driver.
void empty_cache();

// The program cache (kernels are OpenCL C compiled at run time): how many
// programs were compiled from source, loaded from the on-disk cache, or found
// in memory since the process started.
struct ProgramCacheStats {
  int64_t compiled = 0;
  int64_t loaded_from_disk = 0;
  int64_t memory_hits = 0;
  double compile_seconds = 0;  // total time in clBuildProgram from source
  double load_seconds = 0;     // total time building programs from cached binaries
};
ProgramCacheStats program_cache_stats();
// Forgets the compiled programs held in memory (the on-disk cache stays): the
// next use of each kernel loads it from disk, as a new process would.
void clear_program_memory_cache();
// The directory of the on-disk program cache: $NABLA_OPENCL_CACHE_DIR, else
// $XDG_CACHE_HOME/nabla/opencl, else ~/.cache/nabla/opencl. Empty
// NABLA_OPENCL_CACHE_DIR ("") turns the disk cache off.
std::string program_cache_dir();

}  // namespace nabla::opencl

// Loading the CUDA backend (internal): libnabla.so never links CUDA; the
// backend is libnabla_cuda.so, opened with dlopen at the first
// find_backend(DeviceType::CUDA) or nabla::cuda:: call. Its static
// initializers register its Backend (core/backend.h) and its Runtime below;
// they must not call find_backend(DeviceType::CUDA) (the load is under way).
#pragma once
#include <cstdint>
#include <string>

#include "nabla/core/device.h"
#include "nabla/cuda.h"

namespace nabla::cuda::detail {

// A CUDA graph (libnabla_cuda's kernels/cuda/cuda_graph.cpp): the work a
// thread enqueued on a device's compute stream between begin_capture and
// end_capture, instantiated, replayed by launch. Its memory: what the thread
// allocated on the device meanwhile, from a private pool of the graph's.
struct CapturedGraph;

// What nabla/cuda.h and graph::Session need from libnabla_cuda beyond the
// Backend interface.
struct Runtime {
  MemoryStats (*memory_stats)(int device) = nullptr;  // an Error for an index that is not a device
  void (*empty_cache)() = nullptr;
  // cuDNN (nabla/cudnn.h): loaded at the first call; its version (0 when it
  // cannot be used) and why not.
  int (*cudnn_version)() = nullptr;
  std::string (*cudnn_unavailable_reason)() = nullptr;
  // Makes the device's primary context current on the calling thread and
  // returns its compute stream (the CUstream of queue 0, where ops run); an
  // Error for an index that is not a device.
  void* (*enter_compute_stream)(int device) = nullptr;
  // Begins capturing (CU_STREAM_CAPTURE_MODE_RELAXED) `device`'s compute
  // stream; the calling thread allocates on that device from the graph's
  // private pool until end_capture. An Error when capture cannot begin.
  CapturedGraph* (*begin_capture)(int device) = nullptr;
  // Ends the capture and instantiates the graph: "" when it can be
  // launched, else why not ("cuStreamEndCapture failed with
  // CUDA_ERROR_STREAM_CAPTURE_INVALIDATED ..."). Never throws; the thread
  // allocates from the shared cache again either way.
  std::string (*end_capture)(CapturedGraph* graph) = nullptr;
  // Enqueues one replay on the compute stream (an Error if the launch fails).
  void (*launch)(CapturedGraph* graph) = nullptr;
  // Waits for the device's work, destroys the graph (ending its capture if
  // still under way) and releases its pool. Never throws.
  void (*destroy)(CapturedGraph* graph) = nullptr;
  // Bytes of device memory the graph's pool holds.
  int64_t (*pool_bytes)(CapturedGraph* graph) = nullptr;
};
// Called by libnabla_cuda's static initializer.
void register_runtime(const Runtime& runtime);
// The registered runtime (load_library() must have succeeded).
const Runtime& runtime();

// Loads libnabla_cuda.so once (thread-safe): $NABLA_CUDA_LIBRARY when set,
// else libnabla_cuda.so beside libnabla.so. False when the backend is not
// built or could not be loaded; load_error() then says why (remembered: the
// load is not retried).
bool load_library();
const std::string& load_error();

// For libraries that enqueue their own work on nabla's CUDA streams (NCCL in
// libnabla_distributed), which link no CUDA library: Runtime's
// enter_compute_stream, an Error naming `api` when no CUDA device is present.
void* enter_compute_stream(int device, const char* api);

}  // namespace nabla::cuda::detail

namespace nabla {
class Backend;
namespace detail {
// find_backend without loading anything (core/backend.cpp): what is registered now.
Backend* registered_backend(DeviceType type);
}  // namespace detail
}  // namespace nabla

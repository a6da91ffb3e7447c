// The CUDA device runtime (internal to libnabla_cuda): the devices found at
// first use, each with its primary context, streams and caching allocator.
// The Backend of core/backend.h (backend.cpp) and, later, the kernels are
// built on it. A tensor's storage handle is its CUdeviceptr; its offset
// travels to kernels as an argument.
#pragma once
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>

#include "nabla/kernels/cuda/driver.h"

namespace nabla::cuda {

class DeviceAllocator;

struct DeviceContext {
  int index = 0;
  CUdevice device = 0;
  CUcontext context = nullptr;  // the device's primary context (shared with cuBLAS and cuDNN)
  std::string name;
  int64_t total_memory = 0;     // bytes
  int compute_major = 0, compute_minor = 0;
  int driver_version = 0;       // cuDriverGetVersion: 13000 for CUDA 13.0
  DeviceAllocator* allocator = nullptr;

  // Makes the primary context current on the calling thread: every driver
  // call for this device follows it (a thread may have run other devices' or
  // other libraries' work since).
  void make_current() const;
  // Stream 0 runs ops; Backend::new_queue adds more (copies beside compute).
  // All are non-blocking: they never wait for the legacy default stream.
  CUstream stream(int id);
  int add_stream();
  std::mutex streams_mu;
  std::deque<CUstream> streams;
};

// The devices present (enumerated once, at first call; 0 when none). Not
// named device_count: nabla/cuda.h's cuda::device_count is libnabla's, and a
// function of the same name here would be bound to it at load time.
int present_device_count();
// Why there is none, in one sentence (empty when there is one).
std::string unavailable_reason_text();
// The device of `index`; an Error naming `api` when absent.
DeviceContext& device(int index, const char* api = "cuda");
// "cuda:0 (NVIDIA H100 80GB HBM3)", for messages.
std::string device_text(const DeviceContext& d);

inline CUdeviceptr device_ptr(void* handle, std::size_t offset) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(handle)) + offset;
}

}  // namespace nabla::cuda

// A CUDA device that is absent wherever the tests run: cuda:0 on a machine
// without a GPU (or without the CUDA backend), cuda:N (one past the last) on a
// GPU machine. The tests of "an absent device is a clear error" use it, so
// that they hold on both (scripts/test_gpu.sh runs them on a GPU).
#pragma once
#include <string>

#include "nabla/cuda.h"
#include "nabla/nabla.h"

namespace nabla::testing {

inline Device absent_cuda_device() {
  return Device(DeviceType::CUDA, cuda::is_available() ? cuda::device_count() : 0);
}

// What the error for absent_cuda_device() says after "device cuda:N ": that
// the backend is not available (no GPU here) or that the index does not exist.
inline std::string absent_cuda_words() { return cuda::is_available() ? "does not exist" : "is not available"; }

}  // namespace nabla::testing

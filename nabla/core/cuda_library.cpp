// Loads libnabla_cuda.so on first use and answers nabla/cuda.h, also where
// the backend is absent. NABLA_CUDA_BUILT (set by CMake on this file) says
// whether the backend was built beside this library.
#include "nabla/core/cuda_library.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "nabla/core/backend.h"
#include "nabla/core/error.h"
#include "nabla/cudnn.h"

#ifndef NABLA_CUDA_BUILT
#define NABLA_CUDA_BUILT 0
#endif

namespace nabla::cuda {
namespace detail {
namespace {

struct LoadState {
  std::once_flag once;
  bool loaded = false;
  std::string error;
  std::mutex runtime_mu;
  Runtime runtime;
};

LoadState& state() {
  static LoadState* s = new LoadState();  // never destroyed: tensors may outlive static destructors
  return *s;
}

// libnabla_cuda.so beside the library that holds this function (libnabla.so
// in the build tree or where it is installed).
std::string library_path() {
  if (const char* env = std::getenv("NABLA_CUDA_LIBRARY"); env && *env) return env;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&load_library), &info) == 0 || info.dli_fname == nullptr)
    return "libnabla_cuda.so";  // the loader's search path
  return (std::filesystem::path(info.dli_fname).parent_path() / "libnabla_cuda.so").string();
}

void load(LoadState& s) {
  if (!NABLA_CUDA_BUILT) {
    s.error = "nabla was built without CUDA (NABLA_CUDA=OFF or no toolkit found)";
    return;
  }
  const std::string path = library_path();
  // Never closed: its Backend and kernels are used until the process ends.
  if (!dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    const char* why = dlerror();
    s.error = std::string("libnabla_cuda.so could not be loaded: ") + (why ? why : path + ": dlopen failed");
    return;
  }
  std::lock_guard lock(s.runtime_mu);
  if (!s.runtime.memory_stats || !nabla::detail::registered_backend(DeviceType::CUDA)) {
    s.error = "libnabla_cuda.so could not be loaded: " + path +
              " registered no CUDA backend (is it from another build of nabla?)";
    return;
  }
  s.loaded = true;
}

}  // namespace

void register_runtime(const Runtime& runtime) {
  LoadState& s = state();
  std::lock_guard lock(s.runtime_mu);
  s.runtime = runtime;
}

const Runtime& runtime() { return state().runtime; }

bool load_library() {
  LoadState& s = state();
  std::call_once(s.once, [&] { load(s); });
  return s.loaded;
}

const std::string& load_error() {
  load_library();
  return state().error;
}

void* enter_compute_stream(int device, const char* api) {
  NABLA_CHECK(device >= 0 && device_count() > device, api, ": cuda:", device, " is not present (",
              device_count() == 0 ? unavailable_reason() : std::to_string(device_count()) + " CUDA devices", ")");
  auto enter = state().runtime.enter_compute_stream;
  NABLA_CHECK(enter, api, ": libnabla_cuda.so registered no compute-stream entry (is it from another build of nabla?)");
  return enter(device);
}

}  // namespace detail

namespace {
Backend* backend() { return detail::load_library() ? find_backend(DeviceType::CUDA) : nullptr; }
}  // namespace

bool is_built() { return NABLA_CUDA_BUILT; }
bool is_available() { return device_count() > 0; }

int device_count() {
  Backend* b = backend();
  return b ? b->device_count() : 0;
}

std::string unavailable_reason() {
  Backend* b = backend();
  if (!b) return detail::load_error();
  return b->device_count() > 0 ? "" : b->unavailable_reason();
}

MemoryStats memory_stats(int device) {
  if (device_count() == 0) return {};
  return detail::state().runtime.memory_stats(device);
}

void empty_cache() {
  if (device_count() > 0) detail::state().runtime.empty_cache();
}

void synchronize() {
  Backend* b = backend();
  for (int i = 0, n = b ? b->device_count() : 0; i < n; ++i) b->synchronize(i);
}

// ---- cuDNN (nabla/cudnn.h) ----------------------------------------------------

namespace cudnn {
namespace {
std::atomic<bool>& enabled_flag() {
  static std::atomic<bool> on{[] {
    const char* env = std::getenv("NABLA_CUDNN");
    return !(env && std::string(env) == "0");
  }()};
  return on;
}
std::atomic<bool>& benchmark_flag() {
  static std::atomic<bool> on{[] {
    const char* env = std::getenv("NABLA_CUDNN_BENCHMARK");
    return env && std::string(env) == "1";
  }()};
  return on;
}
std::atomic<int64_t> cudnn_calls{0}, im2col_calls{0}, benchmarked_shapes{0}, im2col_won_shapes{0};
}  // namespace

ConvCounts conv_counts() {
  return {cudnn_calls.load(std::memory_order_relaxed), im2col_calls.load(std::memory_order_relaxed),
          benchmarked_shapes.load(std::memory_order_relaxed), im2col_won_shapes.load(std::memory_order_relaxed)};
}

bool benchmark() { return benchmark_flag().load(std::memory_order_relaxed); }
void set_benchmark(bool on) { benchmark_flag().store(on, std::memory_order_relaxed); }

bool is_available() { return version() > 0; }

int version() { return detail::load_library() ? detail::state().runtime.cudnn_version() : 0; }

std::string unavailable_reason() {
  if (!detail::load_library()) return detail::load_error();
  return detail::state().runtime.cudnn_unavailable_reason();
}

bool enabled() { return enabled_flag().load(std::memory_order_relaxed); }
void set_enabled(bool on) { enabled_flag().store(on, std::memory_order_relaxed); }

std::string conv_path() {
  if (!enabled()) return "im2col + cuBLAS (cuDNN disabled: NABLA_CUDNN=0 or cuda::cudnn::set_enabled(false))";
  const int v = version();
  if (v == 0) return "im2col + cuBLAS (" + unavailable_reason() + ")";
  return "cuDNN " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100) +
         (benchmark() ? ", benchmark mode (the fastest of cuDNN and im2col + cuBLAS per shape)" : "");
}

}  // namespace cudnn

void detail::count_conv(bool through_cudnn) {
  (through_cudnn ? cudnn::cudnn_calls : cudnn::im2col_calls).fetch_add(1, std::memory_order_relaxed);
}

void detail::count_benchmark(bool im2col_won) {
  cudnn::benchmarked_shapes.fetch_add(1, std::memory_order_relaxed);
  if (im2col_won) cudnn::im2col_won_shapes.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace nabla::cuda

#include "nabla/kernels/cuda/driver.h"

#include <dlfcn.h>

#include <cstdlib>

namespace nabla::cuda {
namespace {

// The symbol a name stands for after cuda.h's macros ("cuMemAlloc_v2").
#define NABLA_CUDA_SYMBOL_TEXT(f) #f
#define NABLA_CUDA_SYMBOL(f) NABLA_CUDA_SYMBOL_TEXT(f)

DriverLibrary* open_driver() {
  auto* lib = new DriverLibrary();  // never destroyed: used until the process ends
  const char* env = std::getenv("NABLA_CUDA_DRIVER_LIBRARY");
  lib->path = env && *env ? env : "libcuda.so.1";
  void* handle = dlopen(lib->path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    lib->error = "no NVIDIA driver: " + lib->path + " not found (" + (why ? why : "dlopen failed") +
                 "); install the NVIDIA driver to use CUDA";
    return lib;
  }
  // Every entry point, or the first one missing (a driver older than the
  // toolkit nabla was built with).
#define NABLA_CUDA_LOOK_UP(f)                                                                                       \
  if (lib->error.empty()) {                                                                                         \
    lib->fn.f = reinterpret_cast<decltype(lib->fn.f)>(dlsym(handle, NABLA_CUDA_SYMBOL(f)));                         \
    if (!lib->fn.f)                                                                                                 \
      lib->error = "the NVIDIA driver " + lib->path + " has no " NABLA_CUDA_SYMBOL(f) " (it is older than CUDA " +  \
                   std::to_string(CUDA_VERSION / 1000) + "." + std::to_string(CUDA_VERSION % 1000 / 10) +           \
                   ", which nabla was built with): update the driver";                                              \
  }
  NABLA_CUDA_DRIVER_FUNCTIONS(NABLA_CUDA_LOOK_UP)
#undef NABLA_CUDA_LOOK_UP
  if (!lib->error.empty()) lib->fn = Driver{};
  return lib;
}

// The codes a driver that cannot name them (the toolkit's stub, whose every
// call fails) may return before anything works; cuGetErrorName names the rest.
const char* fallback_error_text(CUresult code) {
  switch (code) {
    case CUDA_ERROR_STUB_LIBRARY: return "CUDA_ERROR_STUB_LIBRARY (the driver is the toolkit's link stub, not a real NVIDIA driver)";
    case CUDA_ERROR_NO_DEVICE: return "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)";
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (the driver and its kernel module differ)";
    case CUDA_ERROR_NOT_INITIALIZED: return "CUDA_ERROR_NOT_INITIALIZED (cuInit has not succeeded)";
    case CUDA_ERROR_OUT_OF_MEMORY: return "CUDA_ERROR_OUT_OF_MEMORY (out of memory)";
    default: return nullptr;
  }
}

}  // namespace

const DriverLibrary& driver_library() {
  static const DriverLibrary* lib = open_driver();
  return *lib;
}

std::string error_text(CUresult code) {
  const Driver& d = driver();
  const char* name = nullptr;
  const char* text = nullptr;
  if (!d.cuGetErrorName || d.cuGetErrorName(code, &name) != CUDA_SUCCESS || !name) {
    const char* known = fallback_error_text(code);
    return known ? known : "CUDA error " + std::to_string(static_cast<int>(code));
  }
  if (d.cuGetErrorString(code, &text) != CUDA_SUCCESS || !text) return name;
  return std::string(name) + " (" + text + ")";
}

void fail_cu(const char* call, CUresult code, const std::string& context) {
  if (!context.empty()) fail("cuda: ", call, " failed with ", error_text(code), ": ", context);
  fail("cuda: ", call, " failed with ", error_text(code));
}

}  // namespace nabla::cuda

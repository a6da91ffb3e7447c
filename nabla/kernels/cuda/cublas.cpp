#include "nabla/kernels/cuda/cublas.h"

#include <dlfcn.h>

#include <string>

#include "nabla/core/error.h"

namespace nabla::cuda {
namespace {

#define NABLA_CUBLAS_SYMBOL_TEXT(f) #f
#define NABLA_CUBLAS_SYMBOL(f) NABLA_CUBLAS_SYMBOL_TEXT(f)

struct CublasLibrary {
  Cublas fn;
  std::string error;  // why it could not be loaded
};

CublasLibrary* open_cublas() {
  auto* lib = new CublasLibrary();  // never destroyed: used until the process ends
  const std::string path = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    lib->error = "cuBLAS (" + path + ") could not be loaded: " + (why ? why : "dlopen failed");
    return lib;
  }
#define NABLA_CUBLAS_LOOK_UP(f)                                                                  \
  if (lib->error.empty()) {                                                                      \
    lib->fn.f = reinterpret_cast<decltype(lib->fn.f)>(dlsym(handle, NABLA_CUBLAS_SYMBOL(f)));    \
    if (!lib->fn.f) lib->error = path + " has no " NABLA_CUBLAS_SYMBOL(f) " (an older cuBLAS?)"; \
  }
  NABLA_CUBLAS_FUNCTIONS(NABLA_CUBLAS_LOOK_UP)
#undef NABLA_CUBLAS_LOOK_UP
  return lib;
}

}  // namespace

const Cublas& cublas(const char* op) {
  static const CublasLibrary* lib = open_cublas();
  NABLA_CHECK(lib->error.empty(), op, ": ", lib->error);
  return lib->fn;
}

void check_cublas(cublasStatus_t s, const char* call, const char* op) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  const Cublas& c = cublas(op);
  fail(op, ": cuBLAS ", call, " failed with ", c.cublasGetStatusName(s), " (", c.cublasGetStatusString(s), ")");
}

}  // namespace nabla::cuda

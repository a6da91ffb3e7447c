#include "nabla/kernels/cuda/cudnn.h"

#include <dlfcn.h>

#include <cstdlib>

#include "nabla/core/error.h"

namespace nabla::cuda {
namespace {

struct CudnnLibrary {
#if NABLA_HAVE_CUDNN
  Cudnn fn;
#endif
  int version = 0;
  std::string error;  // why it cannot be used
};

#if NABLA_HAVE_CUDNN
#define NABLA_CUDNN_SYMBOL_TEXT(f) #f
#define NABLA_CUDNN_SYMBOL(f) NABLA_CUDNN_SYMBOL_TEXT(f)

CudnnLibrary* open_cudnn() {
  auto* lib = new CudnnLibrary();  // never destroyed: used until the process ends
  // $NABLA_CUDNN_LIBRARY: another file to open (the tests name a missing one).
  const char* env = std::getenv("NABLA_CUDNN_LIBRARY");
  const std::string path = env && *env ? env : "libcudnn.so." + std::to_string(CUDNN_MAJOR);
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    lib->error = "cuDNN could not be loaded: " + std::string(why ? why : path + ": dlopen failed");
    return lib;
  }
#define NABLA_CUDNN_LOOK_UP(f)                                                                            \
  if (lib->error.empty()) {                                                                               \
    lib->fn.f = reinterpret_cast<decltype(lib->fn.f)>(dlsym(handle, NABLA_CUDNN_SYMBOL(f)));              \
    if (!lib->fn.f) lib->error = "cuDNN could not be loaded: " + path + " has no " NABLA_CUDNN_SYMBOL(f); \
  }
  NABLA_CUDNN_FUNCTIONS(NABLA_CUDNN_LOOK_UP)
#undef NABLA_CUDNN_LOOK_UP
  if (!lib->error.empty()) return lib;
  // The legacy convolution API is in cuDNN 9's libcudnn_cnn.so.9, which the
  // front loads when first needed: a call with a null handle loads it (and
  // fails with BAD_PARAM) or says that it cannot.
  lib->version = static_cast<int>(lib->fn.cudnnGetVersion());
  const int major = lib->version / 10000;
  if (major != CUDNN_MAJOR) {
    lib->error = "cuDNN could not be used: " + path + " is version " + std::to_string(lib->version) +
                 ", nabla was built with cuDNN " + std::to_string(CUDNN_MAJOR);
    lib->version = 0;
    return lib;
  }
  cudnnConvolutionDescriptor_t probe = nullptr;
  const cudnnStatus_t s = lib->fn.cudnnCreateConvolutionDescriptor(&probe);
  if (s != CUDNN_STATUS_SUCCESS) {
    lib->error = std::string("cuDNN could not be used: cudnnCreateConvolutionDescriptor failed with ") +
                 lib->fn.cudnnGetErrorString(s) + " (libcudnn_cnn.so." + std::to_string(CUDNN_MAJOR) +
                 " missing or broken?)";
    lib->version = 0;
    return lib;
  }
  lib->fn.cudnnDestroyConvolutionDescriptor(probe);
  return lib;
}
#else
CudnnLibrary* open_cudnn() {
  auto* lib = new CudnnLibrary();
  lib->error = "nabla's CUDA backend was built without cuDNN (no cudnn.h in the toolkit at build time)";
  return lib;
}
#endif

const CudnnLibrary& library() {
  static const CudnnLibrary* lib = open_cudnn();
  return *lib;
}

}  // namespace

#if NABLA_HAVE_CUDNN
const Cudnn* cudnn_library() {
  const CudnnLibrary& lib = library();
  return lib.error.empty() ? &lib.fn : nullptr;
}

void check_cudnn(cudnnStatus_t s, const char* call, const char* op) {
  if (s == CUDNN_STATUS_SUCCESS) return;
  const Cudnn* c = cudnn_library();
  fail(op, ": cuDNN ", call, " failed with status ", static_cast<int>(s), " (",
       c ? c->cudnnGetErrorString(s) : "cuDNN not loaded", ")");
}
#endif

const std::string& cudnn_load_error() { return library().error; }
int cudnn_loaded_version() { return library().version; }

}  // namespace nabla::cuda

// The CUDA driver API, loaded at run time: libnabla_cuda.so does not link
// libcuda (it exists only where an NVIDIA driver is installed), so it opens
// libcuda.so.1 with dlopen at the runtime's first use and looks up each entry
// point it calls. A machine without the driver then gets a clear reason
// ("no NVIDIA driver: ...") instead of a failure to load the library.
//
// The entry points are the versioned symbols cuda.h's macros name
// (cuMemAlloc is cuMemAlloc_v2): the ones a program linked against CUDA 13's
// libcuda would call. Every call's status goes through check(), whose Error
// names the call and the driver's name and text for the code.
#pragma once
#include <cuda.h>

#include <string>

#include "nabla/core/error.h"

namespace nabla::cuda {

// Every driver function nabla calls (add one here to call it).
#define NABLA_CUDA_DRIVER_FUNCTIONS(X)                                                                            \
  X(cuGetErrorName)                                                                                               \
  X(cuGetErrorString)                                                                                             \
  X(cuInit)                                                                                                       \
  X(cuDriverGetVersion)                                                                                           \
  X(cuDeviceGetCount)                                                                                             \
  X(cuDeviceGet)                                                                                                  \
  X(cuDeviceGetName)                                                                                              \
  X(cuDeviceTotalMem)                                                                                             \
  X(cuDeviceGetAttribute)                                                                                         \
  X(cuDevicePrimaryCtxRetain)                                                                                     \
  X(cuCtxSetCurrent)                                                                                              \
  X(cuCtxSynchronize)                                                                                             \
  X(cuStreamCreate)                                                                                               \
  X(cuStreamSynchronize)                                                                                          \
  X(cuStreamWaitEvent)                                                                                            \
  X(cuEventCreate)                                                                                                \
  X(cuEventRecord)                                                                                                \
  X(cuEventSynchronize)                                                                                           \
  X(cuEventQuery)                                                                                                 \
  X(cuEventDestroy)                                                                                               \
  X(cuMemAlloc)                                                                                                   \
  X(cuMemFree)                                                                                                    \
  X(cuMemHostAlloc)                                                                                               \
  X(cuMemFreeHost)                                                                                                \
  X(cuMemcpyHtoDAsync)                                                                                            \
  X(cuMemcpyDtoHAsync)                                                                                            \
  X(cuMemcpyDtoDAsync)                                                                                            \
  X(cuMemsetD8Async)                                                                                              \
  X(cuMemsetD16Async)                                                                                             \
  X(cuMemsetD32Async)                                                                                             \
  /* for launching kernels (next): */                                                                            \
  X(cuModuleLoadData)                                                                                             \
  X(cuModuleGetFunction)                                                                                          \
  X(cuModuleUnload)                                                                                               \
  X(cuLaunchKernel)                                                                                               \
  /* CUDA graphs (cuda_graph.cpp): a plan's run captured once and replayed: */                                  \
  X(cuStreamBeginCapture)                                                                                         \
  X(cuStreamEndCapture)                                                                                           \
  X(cuStreamIsCapturing)                                                                                          \
  X(cuGraphInstantiateWithFlags)                                                                                  \
  X(cuGraphLaunch)                                                                                                \
  X(cuGraphExecDestroy)                                                                                           \
  X(cuGraphDestroy)

// The table of entry points. A member is named like the function in code
// (driver().cuMemAlloc(...)); cuda.h's macros rename both sides alike.
struct Driver {
#define NABLA_CUDA_DRIVER_MEMBER(f) decltype(&::f) f = nullptr;
  NABLA_CUDA_DRIVER_FUNCTIONS(NABLA_CUDA_DRIVER_MEMBER)
#undef NABLA_CUDA_DRIVER_MEMBER
};

struct DriverLibrary {
  Driver fn;          // every member set when `error` is empty
  std::string error;  // why the driver could not be loaded ("no NVIDIA driver: ...")
  std::string path;   // what was opened: libcuda.so.1, or $NABLA_CUDA_DRIVER_LIBRARY
};

// Opens the driver once (thread-safe) and remembers the outcome. The library
// is $NABLA_CUDA_DRIVER_LIBRARY when set (the tests point it at the
// toolkit's stub, whose every call fails with CUDA_ERROR_STUB_LIBRARY), else
// libcuda.so.1.
const DriverLibrary& driver_library();
// The entry points; only valid once driver_library().error is empty (the
// runtime enumerates devices only then).
inline const Driver& driver() { return driver_library().fn; }

// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
std::string error_text(CUresult code);

[[noreturn]] void fail_cu(const char* call, CUresult code, const std::string& context);

// Throws nabla::Error "cuda: <call> failed with <NAME> (<text>)[: context]".
inline void check(CUresult code, const char* call, const std::string& context = "") {
  if (code != CUDA_SUCCESS) [[unlikely]]
    fail_cu(call, code, context);
}

}  // namespace nabla::cuda

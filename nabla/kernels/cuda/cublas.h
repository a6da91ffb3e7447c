// cuBLAS, loaded at its first use (the first GEMM on a CUDA device) with
// dlopen rather than linked: it takes about 50-90 ms and 250 MB of mappings
// to load, which every process that only asks whether CUDA is available
// (every CUDA test that skips on a machine without a GPU) would pay.
//
// The entry points are the symbols cublas_v2.h's macros name (cublasSgemm is
// cublasSgemm_v2), from the cuBLAS major version nabla was built with.
#pragma once
#include <cublas_v2.h>

namespace nabla::cuda {

#define NABLA_CUBLAS_FUNCTIONS(X) \
  X(cublasCreate)                 \
  X(cublasSetStream)              \
  X(cublasSetMathMode)            \
  X(cublasSetWorkspace)           \
  X(cublasGetStatusName)          \
  X(cublasGetStatusString)        \
  X(cublasSgemm)                  \
  X(cublasDgemm)                  \
  X(cublasSgemmStridedBatched)    \
  X(cublasDgemmStridedBatched)

struct Cublas {
#define NABLA_CUBLAS_MEMBER(f) decltype(&::f) f = nullptr;
  NABLA_CUBLAS_FUNCTIONS(NABLA_CUBLAS_MEMBER)
#undef NABLA_CUBLAS_MEMBER
};

// The entry points, loaded once (thread-safe); an Error naming `op` and the
// reason when libcublas cannot be loaded or lacks one.
const Cublas& cublas(const char* op);

// An Error naming `op`, the call and cuBLAS's name and text for `s`.
void check_cublas(cublasStatus_t s, const char* call, const char* op);

}  // namespace nabla::cuda

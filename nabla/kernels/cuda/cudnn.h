// cuDNN, loaded at its first use (the first convolution on a CUDA device, or
// nabla/cudnn.h's queries) with dlopen rather than linked, as cuBLAS is
// (cublas.h): libnabla_cuda.so loads without it, and where it is absent the
// convolutions run as im2col + cuBLAS (kernels/accel/conv.cpp) and
// cudnn_load_error() says why in one line.
//
// cuDNN 9's libcudnn.so.9 is a small front that loads libcudnn_cnn.so.9 and
// libcudnn_ops.so.9 (which hold the legacy convolution API nabla calls) on
// demand. The types come from cudnn.h where the toolkit has it at build time
// (NABLA_HAVE_CUDNN); without it nothing here is compiled in and the loader
// says so.
#pragma once
#include <string>

#if __has_include(<cudnn.h>)
#include <cudnn.h>
#define NABLA_HAVE_CUDNN 1
#else
#define NABLA_HAVE_CUDNN 0
#endif

namespace nabla::cuda {

#if NABLA_HAVE_CUDNN
// Every cuDNN function nabla calls (add one here to call it).
#define NABLA_CUDNN_FUNCTIONS(X)                    \
  X(cudnnGetVersion)                                \
  X(cudnnGetErrorString)                            \
  X(cudnnCreate)                                    \
  X(cudnnSetStream)                                 \
  X(cudnnCreateTensorDescriptor)                    \
  X(cudnnDestroyTensorDescriptor)                   \
  X(cudnnSetTensor4dDescriptor)                     \
  X(cudnnCreateFilterDescriptor)                    \
  X(cudnnDestroyFilterDescriptor)                   \
  X(cudnnSetFilter4dDescriptor)                     \
  X(cudnnCreateConvolutionDescriptor)               \
  X(cudnnDestroyConvolutionDescriptor)              \
  X(cudnnSetConvolution2dDescriptor)                \
  X(cudnnSetConvolutionGroupCount)                  \
  X(cudnnSetConvolutionMathType)                    \
  X(cudnnGetConvolutionForwardAlgorithm_v7)         \
  X(cudnnGetConvolutionBackwardDataAlgorithm_v7)    \
  X(cudnnGetConvolutionBackwardFilterAlgorithm_v7)  \
  X(cudnnGetConvolutionForwardWorkspaceSize)        \
  X(cudnnGetConvolutionBackwardDataWorkspaceSize)   \
  X(cudnnGetConvolutionBackwardFilterWorkspaceSize) \
  X(cudnnConvolutionForward)                        \
  X(cudnnConvolutionBackwardData)                   \
  X(cudnnConvolutionBackwardFilter)                 \
  X(cudnnAddTensor)

struct Cudnn {
#define NABLA_CUDNN_MEMBER(f) decltype(&::f) f = nullptr;
  NABLA_CUDNN_FUNCTIONS(NABLA_CUDNN_MEMBER)
#undef NABLA_CUDNN_MEMBER
};

// The entry points, loaded once (thread-safe); null when cuDNN cannot be
// used (cudnn_load_error() says why).
const Cudnn* cudnn_library();

// An Error naming `op`, the call and cuDNN's text for `s` (cudnnGetErrorString).
void check_cudnn(cudnnStatus_t s, const char* call, const char* op);
#endif

// Why cuDNN cannot be used, in one sentence ("cuDNN could not be loaded:
// libcudnn.so.9: cannot open shared object file ..."); empty when it can.
const std::string& cudnn_load_error();
// cudnnGetVersion() (91900 for 9.19.0); 0 when cuDNN cannot be used.
int cudnn_loaded_version();

}  // namespace nabla::cuda

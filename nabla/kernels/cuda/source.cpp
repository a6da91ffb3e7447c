#include "nabla/kernels/cuda/source.h"

#include "nabla/core/error.h"

namespace nabla::cuda {
namespace {

// Device C's macros and integer names in CUDA C++ (the OpenCL rendering is
// kKernelPrelude in kernels/opencl/launch.cpp). Notes on the choices:
// - NB_INDEX is 64-bit before the multiply: blockIdx.x * blockDim.x overflows
//   32 bits past 4G elements.
// - NB_INF and NB_NAN are bit patterns (NVRTC has no <math.h>, so no INFINITY
//   or NAN), the NaN the quiet one the CPU's quiet_NaN() and OpenCL's NAN have.
// - OpenCL's long is 64-bit on every device; CUDA's is the host's, 64-bit on
//   Linux and macOS (LP64), which the static_assert checks. Repeating a
//   typedef CUDA may already have (uint, ushort, ...) is legal C++.
// - Device C is generic over the signedness of T (x < (T)0 is how a body
//   asks whether T is signed), so NVRTC's "pointless comparison of unsigned
//   integer with zero" (diagnostic 186) is off.
// - No NB_NO_CONTRACT pragma is needed: NVRTC compiles with --fmad=false
//   (nvrtc.cpp), so no multiply-add is ever contracted.
constexpr const char* kKernelPrelude = R"CU(
static_assert(sizeof(long) == 8, "device C needs a 64-bit long (an LP64 host)");
#pragma nv_diag_suppress 186
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
#define NB_KERNEL extern "C" __global__ void
#define NB_GLOBAL
#define NB_LOCAL __shared__
#define NB_INDEX ((long)blockIdx.x * (long)blockDim.x + (long)threadIdx.x)
#define NB_LOCAL_ID ((long)threadIdx.x)
#define NB_GROUP_ID ((long)blockIdx.x)
#define NB_LOCAL_SIZE ((long)blockDim.x)
#define NB_BARRIER __syncthreads()
#define NB_FN __device__ inline
#define NB_NO_CONTRACT
#define NB_INF __int_as_float(0x7f800000)
#define NB_NAN __int_as_float(0x7fc00000)
)CU";

// device C's math primitives as float and double overloads that call CUDA's
// float (expf) and double (exp) functions by name, so a float argument is
// never promoted to double and an integer argument is an ambiguity error, as
// OpenCL C rejects it. isnan & co. return int, as OpenCL's scalar forms do.
constexpr const char* kMathPrelude = R"CU(
#define NB_CUDA_UNARY(name, f32, f64) \
  __device__ inline float name(float x) { return f32(x); } \
  __device__ inline double name(double x) { return f64(x); }
#define NB_CUDA_BINARY(name, f32, f64) \
  __device__ inline float name(float x, float y) { return f32(x, y); } \
  __device__ inline double name(double x, double y) { return f64(x, y); }
#define NB_CUDA_TEST(name, test) \
  __device__ inline int name(float x) { return test(x) ? 1 : 0; } \
  __device__ inline int name(double x) { return test(x) ? 1 : 0; }
NB_CUDA_UNARY(nb_cuda_exp, expf, exp)
NB_CUDA_UNARY(nb_cuda_exp2, exp2f, exp2)
NB_CUDA_UNARY(nb_cuda_expm1, expm1f, expm1)
NB_CUDA_UNARY(nb_cuda_log, logf, log)
NB_CUDA_UNARY(nb_cuda_log2, log2f, log2)
NB_CUDA_UNARY(nb_cuda_log1p, log1pf, log1p)
NB_CUDA_UNARY(nb_cuda_sqrt, sqrtf, sqrt)
NB_CUDA_UNARY(nb_cuda_sin, sinf, sin)
NB_CUDA_UNARY(nb_cuda_cos, cosf, cos)
NB_CUDA_UNARY(nb_cuda_tan, tanf, tan)
NB_CUDA_UNARY(nb_cuda_tanh, tanhf, tanh)
NB_CUDA_UNARY(nb_cuda_erf, erff, erf)
NB_CUDA_UNARY(nb_cuda_floor, floorf, floor)
NB_CUDA_UNARY(nb_cuda_ceil, ceilf, ceil)
NB_CUDA_UNARY(nb_cuda_rint, rintf, rint)
NB_CUDA_UNARY(nb_cuda_trunc, truncf, trunc)
NB_CUDA_BINARY(nb_cuda_pow, powf, pow)
NB_CUDA_BINARY(nb_cuda_fmod, fmodf, fmod)
NB_CUDA_BINARY(nb_cuda_copysign, copysignf, copysign)
NB_CUDA_TEST(nb_cuda_isnan, isnan)
NB_CUDA_TEST(nb_cuda_isinf, isinf)
NB_CUDA_TEST(nb_cuda_isfinite, isfinite)
__device__ inline float nb_cuda_fma(float a, float b, float c) { return fmaf(a, b, c); }
__device__ inline double nb_cuda_fma(double a, double b, double c) { return fma(a, b, c); }
#define NB_EXP(x) nb_cuda_exp(x)
#define NB_EXP2(x) nb_cuda_exp2(x)
#define NB_EXPM1(x) nb_cuda_expm1(x)
#define NB_LOG(x) nb_cuda_log(x)
#define NB_LOG2(x) nb_cuda_log2(x)
#define NB_LOG1P(x) nb_cuda_log1p(x)
#define NB_SQRT(x) nb_cuda_sqrt(x)
#define NB_SIN(x) nb_cuda_sin(x)
#define NB_COS(x) nb_cuda_cos(x)
#define NB_TAN(x) nb_cuda_tan(x)
#define NB_TANH(x) nb_cuda_tanh(x)
#define NB_ERF(x) nb_cuda_erf(x)
#define NB_POW(x, y) nb_cuda_pow(x, y)
#define NB_FMOD(x, y) nb_cuda_fmod(x, y)
#define NB_COPYSIGN(x, y) nb_cuda_copysign(x, y)
#define NB_FLOOR(x) nb_cuda_floor(x)
#define NB_CEIL(x) nb_cuda_ceil(x)
#define NB_RINT(x) nb_cuda_rint(x)
#define NB_TRUNC(x) nb_cuda_trunc(x)
#define NB_FMA(a, b, c) nb_cuda_fma(a, b, c)
#define NB_ISNAN(x) nb_cuda_isnan(x)
#define NB_ISINF(x) nb_cuda_isinf(x)
#define NB_ISFINITE(x) nb_cuda_isfinite(x)
)CU";

}  // namespace

const char* c_type(DType t) {
  switch (t) {
    case kBool:
    case kUInt8: return "unsigned char";
    case kInt32: return "int";
    case kInt64: return "long";
    case kFloat32: return "float";
    case kFloat64: return "double";
    default: return nullptr;
  }
}

const char* cuda_prelude() {
  static const std::string prelude = std::string(kKernelPrelude) + kMathPrelude;
  return prelude.c_str();
}

std::string cuda_device_c_source(std::span<const TypeDef> types, std::string_view body) {
  std::string s = cuda_prelude();
  for (const auto& [name, dtype] : types) {
    const char* type = c_type(dtype);
    NABLA_CHECK(type != nullptr, "cuda: no device kernel takes ", dtype, " (typedef ", name,
                "; device kernels take bool, uint8, int32, int64, float32 and float64)");
    s += "typedef " + std::string(type) + " " + name + ";\n";
  }
  s += body;
  return s;
}

std::string cuda_device_c_source(std::initializer_list<TypeDef> types, std::string_view body) {
  return cuda_device_c_source(std::span<const TypeDef>(types.begin(), types.size()), body);
}

}  // namespace nabla::cuda

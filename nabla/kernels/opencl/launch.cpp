#include "nabla/kernels/opencl/launch.h"


namespace nabla::opencl {
namespace {

// device C's math primitives in OpenCL C. The CUDA prelude defines the same
// names (kernels/cuda/source.cpp).
constexpr const char* kMathPrelude = R"CL(
#define NB_FN inline
#define NB_EXP(x) exp(x)
#define NB_EXP2(x) exp2(x)
#define NB_EXPM1(x) expm1(x)
#define NB_LOG(x) log(x)
#define NB_LOG2(x) log2(x)
#define NB_LOG1P(x) log1p(x)
#define NB_SQRT(x) sqrt(x)
#define NB_SIN(x) sin(x)
#define NB_COS(x) cos(x)
#define NB_TAN(x) tan(x)
#define NB_TANH(x) tanh(x)
#define NB_ERF(x) erf(x)
#define NB_POW(x, y) pow(x, y)
#define NB_FMOD(x, y) fmod(x, y)
#define NB_COPYSIGN(x, y) copysign(x, y)
#define NB_FLOOR(x) floor(x)
#define NB_CEIL(x) ceil(x)
#define NB_RINT(x) rint(x)
#define NB_TRUNC(x) trunc(x)
#define NB_FMA(a, b, c) fma(a, b, c)
#define NB_ISNAN(x) isnan(x)
#define NB_ISINF(x) isinf(x)
#define NB_ISFINITE(x) isfinite(x)
)CL";

// The rest of device C (kernels/device/device_c.h) in OpenCL C.
constexpr const char* kKernelPrelude = R"CL(
#define NB_KERNEL __kernel void
#define NB_GLOBAL __global
#define NB_LOCAL __local
#define NB_INDEX ((long)get_global_id(0))
#define NB_LOCAL_ID ((long)get_local_id(0))
#define NB_GROUP_ID ((long)get_group_id(0))
#define NB_LOCAL_SIZE ((long)get_local_size(0))
#define NB_BARRIER barrier(CLK_LOCAL_MEM_FENCE)
#define NB_NO_CONTRACT _Pragma("OPENCL FP_CONTRACT OFF")
#define NB_INF INFINITY
#define NB_NAN NAN
)CL";

}  // namespace

std::string device_c_source(const accel::Program& program) {
  // Every device nabla runs float64 on has cl_khr_fp64; the pragma is
  // harmless in programs that use no double (PoCL, NVIDIA and AMD accept it).
  std::string s = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  s += kKernelPrelude;
  s += kMathPrelude;
  for (const auto& [name, dtype] : program.types) s += "typedef " + std::string(c_type(dtype)) + " " + name + ";\n";
  s += program.body;
  return s;
}

void check_dtype(const char* op, DType t, const DeviceContext& dev) {
  NABLA_CHECK(c_type(t) != nullptr, op, ": no OpenCL kernel for ", t,
              " (OpenCL kernels take bool, uint8, int32, int64, float32 and float64)");
  NABLA_CHECK(t != kFloat64 || dev.fp64, op, ": opencl:", dev.index, " (", dev.name,
              ") has no float64 support (cl_khr_fp64); use float32");
}

}  // namespace nabla::opencl

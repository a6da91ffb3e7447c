#include "nabla/kernels/opencl/launch.h"

#include "nabla/core/grad_mode.h"

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

std::string device_c_source(std::initializer_list<TypeDef> types, std::string_view body) {
  // Every device nabla runs float64 on has cl_khr_fp64; the pragma is
  // harmless in programs that use no double (PoCL, NVIDIA and AMD accept it).
  std::string s = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  s += kKernelPrelude;
  s += kMathPrelude;
  for (const auto& [name, dtype] : types) s += "typedef " + std::string(c_type(dtype)) + " " + name + ";\n";
  s += body;
  return s;
}

void check_dtype(const char* op, DType t, const DeviceContext& dev) {
  NABLA_CHECK(c_type(t) != nullptr, op, ": no OpenCL kernel for ", t,
              " (OpenCL kernels take bool, uint8, int32, int64, float32 and float64)");
  NABLA_CHECK(t != kFloat64 || dev.fp64, op, ": opencl:", dev.index, " (", dev.name,
              ") has no float64 support (cl_khr_fp64); use float32");
}

Launch::Launch(DeviceContext& dev, const std::string& key, const char* kernel_name,
               const std::function<std::string()>& make_source, const char* op)
    : dev_(dev), compiled_(get_kernel(dev.index, key, kernel_name, make_source)), lock_(compiled_->mu), op_(op) {}

Launch& Launch::set(std::size_t size, const void* value) {
  check(clSetKernelArg(compiled_->kernel, arg_++, size, value), "clSetKernelArg", op_);
  return *this;
}

Launch& Launch::arg(const Tensor& t) {
  const cl_mem m = mem_of(t);
  set(sizeof m, &m);
  return arg(static_cast<int64_t>(t.impl()->offset));
}
Launch& Launch::arg(int64_t v) {
  const cl_long l = v;
  return set(sizeof l, &l);
}
Launch& Launch::arg(double v) { return set(sizeof v, &v); }
Launch& Launch::arg(float v) { return set(sizeof v, &v); }
Launch& Launch::arg_ulong(uint64_t v) {
  const cl_ulong u = v;
  return set(sizeof u, &u);
}
Launch& Launch::arg_as(DType t, double v) {
  switch (t) {
    case kFloat32:
      return arg(static_cast<float>(v));
    case kFloat64:
      return arg(v);
    case kInt64:
      return arg(static_cast<int64_t>(v));
    case kInt32: {
      const cl_int i = static_cast<cl_int>(v);
      return set(sizeof i, &i);
    }
    case kBool:
    case kUInt8: {
      const cl_uchar c = static_cast<cl_uchar>(v);
      return set(sizeof c, &c);
    }
    default:
      fail(op_, ": no OpenCL kernel argument of type ", t);
  }
}
Launch& Launch::local(std::size_t bytes) { return set(bytes, nullptr); }

void Launch::run(std::size_t global, std::size_t local_size) {
  if (global == 0) return;
  if (local_size != 0) global = (global + local_size - 1) / local_size * local_size;
  check(clEnqueueNDRangeKernel(dev_.queue(0), compiled_->kernel, 1, nullptr, &global,
                               local_size != 0 ? &local_size : nullptr, 0, nullptr, nullptr),
        "clEnqueueNDRangeKernel", op_);
  lock_.unlock();
}

Tensor dense(const Tensor& t) {
  if (t.is_contiguous()) return t;
  NoGradGuard no_grad;
  return t.contiguous();
}

}  // namespace nabla::opencl

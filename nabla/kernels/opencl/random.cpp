#include "nabla/kernels/opencl/random.h"

#include <string>

#include "nabla/kernels/opencl/launch.h"
#include "nabla/kernels/opencl/runtime.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {
extern const OpDef rand_op, normal_op, randint_op, bernoulli_scalar_op;  // ops/random_ops.cpp

namespace opencl {
namespace {

// Philox and the 53-bit uniform of core/random.h, in OpenCL C.
constexpr const char* kPhilox = R"CL(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
uint4 nb_philox(ulong n, ulong seed) {
  uint c0 = (uint)n, c1 = (uint)(n >> 32), c2 = 0, c3 = 0;
  uint k0 = (uint)seed, k1 = (uint)(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    const ulong p0 = (ulong)0xD2511F53u * c0, p1 = (ulong)0xCD9E8D57u * c2;
    const uint n0 = (uint)(p1 >> 32) ^ c1 ^ k0, n2 = (uint)(p0 >> 32) ^ c3 ^ k1;
    c1 = (uint)p1;
    c3 = (uint)p0;
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return (uint4)(c0, c1, c2, c3);
}
double nb_unit(uint hi, uint lo) {
  const ulong v = ((ulong)hi << 21) ^ (lo >> 11);
  return (double)(v & ((1UL << 53) - 1)) * (1.0 / 9007199254740992.0);
}
// rand's element i: two per Philox counter.
double nb_uniform(long i, ulong seed, ulong offset) {
  const uint4 w = nb_philox(offset + (ulong)(i / 2), seed);
  return (i % 2) ? nb_unit(w.z, w.w) : nb_unit(w.x, w.y);
}
)CL";

// v for element i, per op (kernels/cpu/random.cpp's formulas); a, b: the
// op's numbers (normal: mean, std; bernoulli_scalar: p), low and range:
// randint's.
const char* value_expr(const OpDef& op) {
  if (&op == &rand_op) return "nb_uniform(i, seed, offset)";
  if (&op == &normal_op)
    return "a + b * sqrt(-2.0 * log(1.0 - nb_unit(w.x, w.y))) * cos(2.0 * M_PI * nb_unit(w.z, w.w))";
  if (&op == &randint_op) return "(double)(low + (long)(((((ulong)w.x) << 32) | w.y) % range))";
  return "((double)(float)nb_uniform(i, seed, offset) < a) ? 1.0 : 0.0";  // bernoulli_scalar
}

// The value stored as the output's type, as cpu::factory_value does.
std::string store_expr(DType t) {
  switch (t) {
    case kBool: return "(uchar)(v != 0.0)";
    case kUInt8: return "(uchar)v";
    case kInt32: return "(int)v";
    case kInt64: return "(long)v";
    case kFloat32: return "(float)v";
    case kFloat64: return "(double)(float)v";
    default: return "";
  }
}

std::string render(const OpDef& op, DType t) {
  std::string s = kPhilox;
  s += "__kernel void nb_random(__global ";
  s += c_type(t);
  s += "* out, long out_offset, long n, ulong seed, ulong offset, double a, double b, long low, ulong range) {\n"
       "  const long i = get_global_id(0);\n"
       "  if (i >= n) return;\n"
       "  const uint4 w = nb_philox(offset + (ulong)i, seed);\n"
       "  const double v = ";
  s += value_expr(op);
  s += ";\n  out[out_offset + i] = " + store_expr(t) + ";\n}\n";
  return s;
}

// Attrs (ops/random_ops.cpp): size, dtype, seed, offset, then per op:
// normal: mean (none: 0), std (none: 1); randint: low, high;
// bernoulli_scalar: p; the device last.
void random_kernel(const OpDef& op, Inputs, const Attrs& attrs, std::span<Tensor> outputs) {
  Tensor& out = outputs[0];
  const int64_t n = out.numel();
  if (n == 0) return;
  const DType t = out.dtype();
  NABLA_CHECK(c_type(t), op.name, ": on OpenCL takes bool, uint8, int32, int64, float32 or float64, got ", t);
  DeviceContext& dev = device(out.device().index, op.name.data());
  NABLA_CHECK(dev.fp64, op.name, ": ", out.device(), " has no float64 (cl_khr_fp64), which the Philox draws use");
  double a = 0, b = 1;
  int64_t low = 0;
  uint64_t range = 1;
  if (&op == &normal_op) {
    a = attrs.is_none(4) ? 0.0 : attrs.f(4);
    b = attrs.is_none(5) ? 1.0 : attrs.f(5);
  } else if (&op == &randint_op) {
    low = attrs.i(4);
    range = static_cast<uint64_t>(attrs.i(5) - attrs.i(4));
  } else if (&op == &bernoulli_scalar_op) {
    a = attrs.f(4);
  }
  std::string key = "random|" + std::string(op.name) + '|' + std::string(dtype_name(t));
  Launch k(dev, key, "nb_random", [&] { return render(op, t); }, op.name.data());
  k.arg(out).arg(n).arg_ulong(static_cast<uint64_t>(attrs.i(2))).arg_ulong(static_cast<uint64_t>(attrs.i(3)));
  k.arg(a).arg(b).arg(low).arg_ulong(range).run(static_cast<std::size_t>(n));
}

}  // namespace

void register_random_kernels() {
  for (const OpDef* op : {&rand_op, &normal_op, &randint_op, &bernoulli_scalar_op})
    register_boxed_kernel(*op, DeviceType::OpenCL, random_kernel);
}

}  // namespace opencl
}  // namespace nabla

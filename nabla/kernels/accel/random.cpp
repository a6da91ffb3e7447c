// Accelerator kernels (OpenCL, CUDA) of the random ops (rand, normal, randint, bernoulli_scalar):
// Philox4x32-10 in device C, element i a function of (seed, offset, i) by the
// formulas of kernels/cpu/random.cpp, so a seed draws the same numbers here as
// on the CPU (uniforms and integers bit for bit; normals to the last bits of
// the device's log and cos).
#include "nabla/kernels/accel/register.h"

#include <string>

#include "nabla/kernels/device/philox.h"
#include "nabla/kernels/accel/programs.h"
#include "nabla/kernels/accel/runtime.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {
extern const OpDef rand_op, normal_op, randint_op, bernoulli_scalar_op;  // ops/random_ops.cpp

namespace accel {
namespace {

// v for element i, per op (kernels/cpu/random.cpp's formulas); a, b: the
// op's numbers (normal: mean, std; bernoulli_scalar: p), low and range:
// randint's.
const char* value_expr(const OpDef& op) {
  if (&op == &rand_op) return "nb_uniform(i, seed, offset)";
  if (&op == &normal_op)
    return "a + b * NB_SQRT(-2.0 * NB_LOG(1.0 - nb_unit(w[0], w[1]))) * NB_COS(6.283185307179586 * nb_unit(w[2], w[3]))";
  if (&op == &randint_op) return "(double)(low + (long)(((((ulong)w[0]) << 32) | w[1]) % range))";
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

}  // namespace

Program random_program(const OpDef& op, DType t) {
  std::string s = device_c::philox_source();
  s += "NB_KERNEL nb_random(NB_GLOBAL O* out, long out_offset, long n, ulong seed, ulong offset, double a, double b, "
       "long low, ulong range) {\n"
       "  const long i = NB_INDEX;\n"
       "  if (i >= n) return;\n"
       "  uint w[4];\n"
       "  nb_philox(offset + (ulong)i, seed, w);\n"
       "  const double v = ";
  s += value_expr(op);
  s += ";\n  out[out_offset + i] = " + store_expr(t) + ";\n}\n";
  return program({{"O", t}}, s);
}

namespace {

// Attrs (ops/random_ops.cpp): size, dtype, seed, offset, then per op:
// normal: mean (none: 0), std (none: 1); randint: low, high;
// bernoulli_scalar: p; the device last.
void random_kernel(const OpDef& op, Inputs, const Attrs& attrs, std::span<Tensor> outputs) {
  Tensor& out = outputs[0];
  const int64_t n = out.numel();
  if (n == 0) return;
  const DType t = out.dtype();
  const DeviceRef dev = device_ref(out.device(), op.name.data());
  check_dtype(op.name.data(), t, dev);
  NABLA_CHECK(dev.fp64(), op.name, ": ", dev.name(), " has no float64, which the Philox draws use");
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
  Launch k(dev, key, "nb_random", [&] { return random_program(op, t); }, op.name.data());
  k.arg(out).arg(n).arg_ulong(static_cast<uint64_t>(attrs.i(2))).arg_ulong(static_cast<uint64_t>(attrs.i(3)));
  k.arg(a).arg(b).arg(low).arg_ulong(range).run(static_cast<std::size_t>(n));
}

}  // namespace

void register_random_kernels(DeviceType type) {
  for (const OpDef* op : {&rand_op, &normal_op, &randint_op, &bernoulli_scalar_op})
    register_boxed_kernel(*op, type, random_kernel);
}

}  // namespace accel
}  // namespace nabla

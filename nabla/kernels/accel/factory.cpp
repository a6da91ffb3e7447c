// Accelerator kernels (OpenCL, CUDA) of the factory ops: full (zeros, ones, full, fill_, zero_ and
// scalar_tensor on the device) fills memory with one value; arange, linspace
// and eye run the range kernels of kernels/device/indexing.h.
#include "nabla/kernels/accel/register.h"

#include <cstring>
#include <string>

#include "nabla/kernels/device/indexing.h"
#include "nabla/kernels/accel/programs.h"
#include "nabla/kernels/accel/runtime.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {
extern const OpDef full_op, arange_op, linspace_op, eye_op;  // ops/factory_ops.cpp

namespace accel {
namespace {

// attrs: size, value, dtype, device. The value converted to the dtype on the
// host (as the CPU kernel does), then its bytes repeated by the device
// (Runtime::fill takes patterns of 1, 2, 4 and 8 bytes: every dtype).
void full_kernel(Inputs, const Attrs& a, std::span<Tensor> out) {
  Tensor& result = out[0];
  const std::size_t item = itemsize(result.dtype());
  const std::size_t bytes = static_cast<std::size_t>(result.numel()) * item;
  if (bytes == 0) return;
  unsigned char pattern[8] = {};
  visit_dtype(result.dtype(), [&]<class T>() {
    const T v = a.scalar(1).to<T>();
    std::memcpy(pattern, &v, sizeof v);
  });
  fill_items(result, pattern, item, "full");
}

// The double value v stored as the output's type, as cpu::factory_value
// does: bool is v != 0, integers truncate, floating types go through float.
// uint8 goes through int as x86 converts a double to uint8_t (so values
// outside [0, 256) wrap alike rather than saturate).
std::string store_macro(DType t) {
  switch (t) {
    case kBool:
      return "#define NB_STORE(v) (T)((v) != 0.0)\n";
    case kUInt8:
      return "#define NB_STORE(v) (T)(int)(v)\n";
    case kFloat32:
    case kFloat64:
      return "#define NB_STORE(v) (T)(float)(v)\n";
    default:
      return "#define NB_STORE(v) (T)(v)\n";
  }
}

// The CPU's `start + step * i` is one fused multiply-add where the build
// targets FMA (GCC and Clang contract a * b + c within an expression by
// default; -march=native on an FMA machine): the device rounds the same way,
// or ranges whose exact values sit on an integer (arange(-3.3, 100, 1.7) at
// 29) would truncate differently.
#if defined(__FMA__) && (defined(__GNUC__) || defined(__clang__))
constexpr const char* kMulAdd = "#define NB_MULADD(a, b, c) NB_FMA(a, b, c)\n";
#else
constexpr const char* kMulAdd = "#define NB_MULADD(a, b, c) ((a) * (b) + (c))\n";
#endif

}  // namespace

Program range_program(DType t) {
  return program({{"T", t}}, "NB_NO_CONTRACT\n" + store_macro(t) + kMulAdd + device_c::kRangeKernels);
}

namespace {

// The kernel `name` of the range program (kRangeKernels) for the output's
// dtype. Ranges are computed in double, as on the CPU, contracted exactly
// where the CPU's are: a device without float64 gets an Error rather than
// other values.
Launch range_kernel(const Tensor& out, const char* name, const char* op) {
  const DeviceRef dev = device_ref(out.device(), op);
  check_dtype(op, out.dtype(), dev);
  NABLA_CHECK(dev.fp64(), op, ": ", dev.name(),
              " has no float64, which the CPU's range arithmetic uses");
  const DType t = out.dtype();
  return Launch(dev, std::string("range|") + std::string(dtype_name(t)) + '|' + name, name,
                [t] { return range_program(t); }, op);
}

// attrs: start, step, size, dtype, device.
void arange_kernel(Inputs, const Attrs& a, std::span<Tensor> out) {
  const int64_t n = out[0].numel();
  if (n == 0) return;
  range_kernel(out[0], "nb_arange", "arange")
      .arg(out[0])
      .arg(n)
      .arg(a.f(0))
      .arg(a.f(1))
      .run(static_cast<std::size_t>(n));
}

// attrs: start, end, steps, dtype, device. The step as the CPU computes it.
void linspace_kernel(Inputs, const Attrs& a, std::span<Tensor> out) {
  const int64_t n = out[0].numel();
  if (n == 0) return;
  const double start = a.f(0), end = a.f(1);
  const double step = n > 1 ? (end - start) / static_cast<double>(n - 1) : 0.0;
  range_kernel(out[0], "nb_linspace", "linspace")
      .arg(out[0])
      .arg(n)
      .arg(start)
      .arg(end)
      .arg(step)
      .run(static_cast<std::size_t>(n));
}

// attrs: n, m, dtype, device.
void eye_kernel(Inputs, const Attrs& a, std::span<Tensor> out) {
  const int64_t n = out[0].numel();
  if (n == 0) return;
  range_kernel(out[0], "nb_eye", "eye").arg(out[0]).arg(n).arg(a.i(1)).run(static_cast<std::size_t>(n));
}

}  // namespace

void register_factory_kernels(DeviceType type) {
  register_kernel(full_op, type, full_kernel);
  register_kernel(arange_op, type, arange_kernel);
  register_kernel(linspace_op, type, linspace_kernel);
  register_kernel(eye_op, type, eye_kernel);
}

}  // namespace accel
}  // namespace nabla

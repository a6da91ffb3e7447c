// CPU kernels of the factory ops (ops/factory_ops.cpp): constants and ranges
// written straight into the output.
#include <algorithm>

#include "nabla/kernels/cpu/fill_by_index.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {

extern const OpDef full_op, arange_op, linspace_op, eye_op;

namespace {

// Attrs: size, value, dtype, device.
void full_kernel(Inputs, const Attrs& a, std::span<Tensor> out) {
  const Tensor& t = out[0];
  visit_dtype(t.dtype(), [&]<class T>() {
    const T v = a.scalar(1).to<T>();
    T* p = static_cast<T*>(t.raw_data());
    std::fill(p, p + t.numel(), v);
  });
}

// Attrs: start, step, size, dtype, device.
void arange_kernel(Inputs, const Attrs& a, std::span<Tensor> out) {
  const double start = a.f(0), step = a.f(1);
  cpu::fill_by_index(out[0], [&](int64_t i) { return start + step * static_cast<double>(i); });
}

// Attrs: start, end, steps, dtype, device.
void linspace_kernel(Inputs, const Attrs& a, std::span<Tensor> out) {
  const double start = a.f(0), end = a.f(1);
  const int64_t steps = a.i(2);
  const double step = steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0.0;
  cpu::fill_by_index(out[0], [&](int64_t i) {
    // Symmetric like PyTorch: the second half counts back from `end`. One
    // step is `start` (PyTorch's linspace(2, 3, 1) is [2]; this gave [3]).
    if (steps == 1) return start;
    return i < steps / 2 ? start + step * static_cast<double>(i) : end - step * static_cast<double>(steps - 1 - i);
  });
}

// Attrs: n, m, dtype, device.
void eye_kernel(Inputs, const Attrs& a, std::span<Tensor> out) {
  const int64_t cols = a.i(1);
  cpu::fill_by_index(out[0], [&](int64_t i) { return i / cols == i % cols ? 1.0 : 0.0; });
}

const KernelRegistrar kFull{full_op, DeviceType::CPU, full_kernel};
const KernelRegistrar kArange{arange_op, DeviceType::CPU, arange_kernel};
const KernelRegistrar kLinspace{linspace_op, DeviceType::CPU, linspace_kernel};
const KernelRegistrar kEye{eye_op, DeviceType::CPU, eye_kernel};

}  // namespace
}  // namespace nabla

#include "nabla/kernels/opencl/factory.h"

#include <cstring>

#include "nabla/kernels/opencl/runtime.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {
extern const OpDef full_op;  // ops/factory_ops.cpp

namespace opencl {
namespace {

// attrs: size, value, dtype, device. The value converted to the dtype on the
// host (as the CPU kernel does), then its bytes repeated by the device
// (clEnqueueFillBuffer takes patterns of 1, 2, 4 and 8 bytes: every dtype).
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
  DeviceContext& dev = device(result.device().index, "full");
  check(clEnqueueFillBuffer(dev.queue(0), mem_of(result), pattern, item,
                            static_cast<std::size_t>(result.impl()->offset) * item, bytes, 0, nullptr, nullptr),
        "clEnqueueFillBuffer", "full");
}

}  // namespace

void register_factory_kernels() { register_kernel(full_op, DeviceType::OpenCL, full_kernel); }

}  // namespace opencl
}  // namespace nabla

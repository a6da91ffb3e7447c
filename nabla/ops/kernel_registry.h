// Kernels per (op, device type), kept outside the op table's entries: each
// backend registers the kernels it has (the CPU's in kernels/cpu, OpenCL's in
// kernels/opencl), so adding a backend never edits an OpDef. Eager dispatch,
// the Session and compile() all find kernels here.
// Lookup for an op on a device: the device's kernel, else the op's generic
// kernel (one written on the device runtime alone, such as the cross-device
// copy), else the op's composite, else the device's fallback (a boxed kernel
// that runs any op: the test device's, which runs the CPU kernel on copies),
// else an Error naming op, device and dtype.
#pragma once
#include <initializer_list>

#include "nabla/ops/op.h"

namespace nabla {

// Registers (or replaces) the kernel of `op` on `device`; a null kernel takes
// the registration back. Called at load time, before ops run (static
// initializers through KernelRegistrar).
void register_kernel(const OpDef& op, DeviceType device, KernelFn kernel);
// A kernel that runs on every device because it only uses core/backend.h.
void register_generic_kernel(const OpDef& op, KernelFn kernel);

// A kernel that is told which op it runs, so one function serves them all.
using BoxedKernelFn = void (*)(const OpDef& op, Inputs inputs, const Attrs& attrs, std::span<Tensor> outputs);
// Registers a boxed kernel of `op` on `device`: a backend whose kernels are
// generated from a table (OpenCL's elementwise ops and reductions) registers
// one function for every row. A plain kernel of the same op and device wins.
void register_boxed_kernel(const OpDef& op, DeviceType device, BoxedKernelFn kernel);
// Runs every op that has no kernel of its own on `device` (after composites).
void register_fallback(DeviceType device, BoxedKernelFn fallback);

// The device's own kernel, else the generic one; null when neither exists.
KernelFn find_kernel(const OpDef& op, DeviceType device);
// Whether `device` has a kernel of its own for op (not the generic one).
bool has_device_kernel(const OpDef& op, DeviceType device);

// What runs an op on a device: a kernel, or the device's fallback.
struct KernelRef {
  KernelFn kernel = nullptr;
  BoxedKernelFn boxed = nullptr;
  void operator()(const OpDef& op, Inputs inputs, const Attrs& attrs, std::span<Tensor> outputs) const {
    if (kernel) [[likely]]
      kernel(inputs, attrs, outputs);
    else
      boxed(op, inputs, attrs, outputs);
  }
  bool is_fallback() const { return kernel == nullptr; }
};
// find_kernel, else the device's fallback, or an Error "<op><suffix>: no
// kernel for <dtype> on <device>" that lists the devices that have one.
KernelRef kernel_for(const OpDef& op, Device device, DType dtype, const char* suffix = "");

// One op's kernel, for registering a family of ops at once.
struct OpKernel {
  const OpDef& op;
  KernelFn kernel;
};

// Registers kernels from a static initializer. A backend keeps one block per
// op family beside the kernels it names, e.g. in kernels/cpu:
//   const KernelRegistrar kCpuKernels{DeviceType::CPU, {{gather_op, gather_kernel}, ...}};
// Safe before the OpDefs' own files run their initializers: OpDefs are constinit.
struct KernelRegistrar {
  KernelRegistrar(const OpDef& op, DeviceType device, KernelFn kernel) { register_kernel(op, device, kernel); }
  KernelRegistrar(DeviceType device, std::initializer_list<OpKernel> kernels);
};

}  // namespace nabla

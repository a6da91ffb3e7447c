// to_device: a tensor's values on another device. Tensor::to(device), cpu()
// and copy_ across devices are this op, built on Backend::copy (the only way
// bytes cross devices), so it is differentiable (the gradient goes back to the
// source device) and a graph can hold it.
#include <cstring>

#include "nabla/core/backend.h"
#include "nabla/core/grad_mode.h"
#include "nabla/ops/kernel_registry.h"
#include "nabla/ops/ops.h"

namespace nabla {

extern const OpDef to_device_op;

namespace {

// attrs: 0 target device, 1 source device (for the gradient), 2 non_blocking.
OutputMetas infer_to_device(const OpDef&, Inputs in, const Attrs&) { return {{in[0].sizes(), in[0].dtype()}}; }

// Copies the contiguous src into the contiguous dst through the backend that
// owns the non-CPU side. Asynchronous only from or into pinned host memory
// (anything else may be freed or read before the copy is done).
void copy_bytes(const Tensor& dst, const Tensor& src, bool non_blocking) {
  const std::size_t bytes = static_cast<std::size_t>(src.numel()) * itemsize(src.dtype());
  if (bytes == 0) return;
  const Device owner = src.device().is_cpu() ? dst.device() : src.device();
  const Tensor& host = src.device().is_cpu() ? src : dst;
  const bool async = non_blocking && host.device().is_cpu() && host.impl()->storage->is_pinned();
  Ref<RefCounted> keep_alive = async ? Ref<RefCounted>(host.impl()->storage) : nullptr;
  backend_for(owner, "Tensor::to").copy(mem_ref(dst), mem_ref(src), bytes, Queue{owner, 0}, async, keep_alive);
}

void to_device_kernel(Inputs in, const Attrs& attrs, std::span<Tensor> out) {
  NoGradGuard no_grad;  // the contiguous copy below is part of this op
  Tensor src = in[0].is_contiguous() ? in[0] : in[0].contiguous();  // on the source device
  const Tensor& dst = out[0];
  const bool non_blocking = attrs.b(2);
  if (!src.device().is_cpu() && !dst.device().is_cpu() && src.device() != dst.device()) {
    // Between two devices: through the host (no backend sees both).
    Tensor host = make_empty(src.sizes(), src.dtype(), kCPU, "Tensor::to");
    copy_bytes(host, src, false);
    copy_bytes(dst, host, false);
    return;
  }
  copy_bytes(dst, src, non_blocking);
}

TensorList to_device_grad(GradCtx& c) {
  const Attrs& a = c.attrs();
  return {call1(to_device_op, {c.grad()}, Attrs{a.str(1), a.str(0), false})};
}

}  // namespace

extern constinit const OpDef to_device_op{.name = "to_device",
                                          .attr_names = "device,source,non_blocking",
                                          .infer = infer_to_device,
                                          .grad = to_device_grad,
                                          .flags = kNativeReducedFloat,
                                          .save_inputs = 0,
                                          .device_attr = 0};
const OpRegistrar kRegisterToDevice{to_device_op};
// Runs on every device: it only uses the device runtime.
[[maybe_unused]] const bool kToDeviceGeneric = (register_generic_kernel(to_device_op, to_device_kernel), true);

Tensor Tensor::to(Device d, bool non_blocking, bool copy) const {
  const Device from = checked("Tensor::to")->device;
  if (d == from) return copy ? nabla::clone(*this) : *this;
  backend_for(d, "Tensor::to");  // a clear error naming the API for an absent device
  if (!is_symbolic()) backend_for(from, "Tensor::to");
  return call1(to_device_op, {*this}, Attrs{d.str(), from.str(), non_blocking});
}

Tensor Tensor::pin_memory() const {
  const TensorImpl* p = checked("Tensor::pin_memory");
  NABLA_CHECK(p->device.is_cpu(), "Tensor::pin_memory: only CPU tensors can be pinned, this one is on ", p->device);
  NABLA_CHECK(p->storage, "Tensor::pin_memory: a symbolic tensor (a graph value) has no memory to pin");
  if (p->storage->is_pinned()) return *this;
  Allocator* pinned = nullptr;
  for (const DeviceInfo& d : devices())
    if (!d.device.is_cpu() && (pinned = find_backend(d.device.type)->pinned_allocator())) break;
  NABLA_CHECK(pinned, "Tensor::pin_memory: no device with pinned host memory is present (the devices present are ",
              available_devices_text(), "); pinned memory only speeds up copies to an accelerator");
  Tensor src = contiguous();
  const std::size_t bytes = static_cast<std::size_t>(src.numel()) * itemsize(src.dtype());
  auto storage = make_ref<Storage>(bytes, pinned, /*pinned=*/true);
  Tensor out(make_ref<TensorImpl>(std::move(storage), src.sizes(), contiguous_strides(src.sizes()), 0, src.dtype(), kCPU));
  if (bytes) std::memcpy(out.raw_data(), src.raw_data(), bytes);
  return out;
}

bool Tensor::is_pinned() const {
  const TensorImpl* p = checked("Tensor::is_pinned");
  return p->storage && p->storage->is_pinned();
}

}  // namespace nabla

// slice_backward on an accelerator: the gradient of slice (and select, split,
// chunk, indexing with slices): zeros with the gradient copied into the slice.
#include "nabla/kernels/accel/register.h"

#include "nabla/kernels/accel/runtime.h"
#include "nabla/kernels/accel/strided.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {
extern const OpDef slice_backward_op;

namespace accel {
namespace {

// attrs: dim, start, stop, step, input_sizes. The output is fresh and
// contiguous: zero it, then copy the gradient into the strided view of the
// slice.
void slice_backward_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  Tensor& result = out[0];
  const TensorImpl* r = result.impl();
  if (result.numel() == 0) return;
  zero_fill(result, "slice_backward");
  const std::size_t d = static_cast<std::size_t>(a.i(0));
  Shape strides = r->strides;
  const int64_t offset = r->offset + a.i(1) * strides[d];
  if (in[0].sizes()[d] > 1) strides[d] *= a.i(3);  // one element: the stride is unused (a huge step would overflow it)
  Tensor slice(make_ref<TensorImpl>(r->storage, in[0].sizes(), strides, offset, r->dtype, r->device));
  copy_items(slice, in[0], "slice_backward");
}

}  // namespace

void register_slice_backward_kernel(DeviceType type) { register_kernel(slice_backward_op, type, slice_backward_kernel); }

}  // namespace accel
}  // namespace nabla

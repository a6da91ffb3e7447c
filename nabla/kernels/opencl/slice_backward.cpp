#include "nabla/kernels/opencl/slice_backward.h"

#include "nabla/kernels/opencl/elementwise.h"
#include "nabla/kernels/opencl/runtime.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {
extern const OpDef slice_backward_op, clone_op;

namespace opencl {
namespace {

// attrs: dim, start, stop, step, input_sizes. The output is fresh and
// contiguous: zero it (clEnqueueFillBuffer), then copy the gradient into the
// strided view of the slice with the generated copy kernel (clone's row).
void slice_backward_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  Tensor& result = out[0];
  const TensorImpl* r = result.impl();
  const std::size_t bytes = static_cast<std::size_t>(result.numel()) * itemsize(result.dtype());
  if (bytes == 0) return;
  DeviceContext& dev = device(result.device().index, "slice_backward");
  const cl_uchar zero = 0;
  check(clEnqueueFillBuffer(dev.queue(0), mem_of(result), &zero, 1, static_cast<std::size_t>(r->offset) * itemsize(r->dtype),
                            bytes, 0, nullptr, nullptr),
        "clEnqueueFillBuffer", "slice_backward");
  const std::size_t d = static_cast<std::size_t>(a.i(0));
  Shape strides = r->strides;
  const int64_t offset = r->offset + a.i(1) * strides[d];
  strides[d] *= a.i(3);
  Tensor slice(make_ref<TensorImpl>(r->storage, in[0].sizes(), strides, offset, r->dtype, r->device));
  run_elementwise(*device_c::find_elementwise_expr(clone_op), in, Attrs{}, slice);
}

}  // namespace

void register_slice_backward_kernel() { register_kernel(slice_backward_op, DeviceType::OpenCL, slice_backward_kernel); }

}  // namespace opencl
}  // namespace nabla

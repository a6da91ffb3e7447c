// The CPU kernels of slice_backward and clone (ops/shape_ops.cpp). The view
// ops' kernels touch no memory and stay there, as generic kernels.
#include <cstring>

#include "nabla/kernels/cpu/elementwise.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {

extern const OpDef slice_backward_op, clone_op;

namespace cpu {
namespace {

// Zeros, then the gradient copied into the slice [start, stop) step `step` of
// dim `dim` (attrs as slice's, already checked by the op's inference).
void slice_backward_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  Tensor& grad_input = out[0];
  std::memset(grad_input.raw_data(), 0, static_cast<std::size_t>(grad_input.numel()) * itemsize(grad_input.dtype()));
  const int64_t d = a.i(0), start = a.i(1), stop = a.i(2), step = a.i(3);
  Shape sizes = grad_input.sizes(), strides = grad_input.strides();
  // As slice's kernel: no overflow for any step > 0 (the stride of one element is never used).
  sizes[d] = stop > start ? (stop - start - 1) / step + 1 : 0;
  const int64_t offset = grad_input.storage_offset() + (sizes[d] > 0 ? start * strides[d] : 0);
  if (sizes[d] > 1) strides[d] *= step;
  Tensor dst[1] = {make_view(grad_input, sizes, strides, offset)};
  const Tensor src[1] = {in[0]};
  cast_kernel(src, {}, dst);
}

// clone (a contiguous copy)
void clone_kernel(Inputs in, const Attrs&, std::span<Tensor> out) { cast_kernel(in, {}, out); }

const KernelRegistrar kShapeKernels{DeviceType::CPU, {
    {slice_backward_op, slice_backward_kernel},
    {clone_op, clone_kernel},
}};

}  // namespace
}  // namespace cpu
}  // namespace nabla

// The CPU kernels of pad and pad_backward (ops/pad_ops.cpp).
#include "nabla/kernels/cpu/pad.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {

extern const OpDef pad_op, pad_backward_op;

namespace cpu {
namespace {

void pad_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  PadMode mode = parse_mode(a.str(1));
  Shape lo, hi;
  split_pads(a.ints(0), in[0].dim(), mode == PadMode::Constant, lo, hi);
  if (mode == PadMode::Constant)
    pad_constant(in[0], lo, hi, Scalar(a.f(2)), out[0]);
  else
    pad_index(in[0], lo, hi, mode, out[0]);
}

void pad_backward_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  Shape lo, hi;
  split_pads(a.ints(0), out[0].dim(), false, lo, hi);
  pad_index_backward(in[0], lo, hi, parse_mode(a.str(1)), out[0]);
}

const KernelRegistrar kPadKernels{DeviceType::CPU, {
    {pad_op, pad_kernel},
    {pad_backward_op, pad_backward_kernel},
}};

}  // namespace
}  // namespace cpu
}  // namespace nabla

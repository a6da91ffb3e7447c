// The CPU kernels of flip, tril and triu (ops/rearrange_ops.cpp).
#include "nabla/kernels/cpu/rearrange.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {

extern const OpDef flip_op, tril_op, triu_op;

namespace cpu {
namespace {

void flip_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) { flip(in[0], a.ints(0), out[0]); }

template <bool Lower>
void triangle_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  triangle(in[0], a.i(0), Lower, out[0]);
}

const KernelRegistrar kRearrangeKernels{DeviceType::CPU, {
    {flip_op, flip_kernel},
    {tril_op, triangle_kernel<true>},
    {triu_op, triangle_kernel<false>},
}};

}  // namespace
}  // namespace cpu
}  // namespace nabla

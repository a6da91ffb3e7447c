// The CPU kernel of cat (ops/join_ops.cpp).
#include "nabla/kernels/cpu/rearrange.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {

extern const OpDef cat_op;

namespace cpu {
namespace {

void cat_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) { cat(in, a.i(0), out[0]); }

const KernelRegistrar kJoinKernels{DeviceType::CPU, {
    {cat_op, cat_kernel},
}};

}  // namespace
}  // namespace cpu
}  // namespace nabla

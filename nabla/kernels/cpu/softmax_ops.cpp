// The CPU kernels of softmax and log_softmax (ops/softmax_ops.cpp).
#include "nabla/kernels/cpu/softmax.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {

extern const OpDef softmax_op, log_softmax_op;

namespace cpu {
namespace {

template <bool Log>
void softmax_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  softmax(in[0], a.i(0), Log, out[0]);
}

const KernelRegistrar kSoftmaxKernels{DeviceType::CPU, {
    {softmax_op, softmax_kernel<false>},
    {log_softmax_op, softmax_kernel<true>},
}};

}  // namespace
}  // namespace cpu
}  // namespace nabla

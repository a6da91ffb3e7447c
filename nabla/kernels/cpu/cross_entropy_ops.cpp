// The CPU kernels of cross_entropy and nll_loss (ops/cross_entropy_ops.cpp);
// the loops are in kernels/cpu/loss.cpp.
#include "nabla/kernels/cpu/loss.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {

extern const OpDef cross_entropy_op, nll_loss_op;

namespace cpu {
namespace {

const KernelRegistrar kCrossEntropyKernels{DeviceType::CPU, {
    {cross_entropy_op, cross_entropy_kernel},
    {nll_loss_op, nll_loss_kernel},
}};

}  // namespace
}  // namespace cpu
}  // namespace nabla

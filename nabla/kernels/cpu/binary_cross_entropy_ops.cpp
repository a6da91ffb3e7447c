// The CPU kernel of binary_cross_entropy (ops/binary_cross_entropy_ops.cpp);
// its loop is in kernels/cpu/loss.cpp.
#include "nabla/kernels/cpu/loss.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {

extern const OpDef binary_cross_entropy_op;

namespace cpu {
namespace {

const KernelRegistrar kBinaryCrossEntropyKernels{DeviceType::CPU, {
    {binary_cross_entropy_op, binary_cross_entropy_kernel},
}};

}  // namespace
}  // namespace cpu
}  // namespace nabla

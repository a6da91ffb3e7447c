// The CPU kernel of dropout (ops/dropout_ops.cpp): draws the Philox counters
// at run time, then kernels/cpu/dropout.cpp's loop.
#include "nabla/core/random.h"
#include "nabla/kernels/cpu/dropout.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {

extern const OpDef dropout_op;

namespace cpu {
namespace {

void dropout_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  // Reserve the counters here, at run time, exactly as nabla::rand would.
  Generator& g = default_generator();
  uint64_t seed = g.seed(), offset = g.reserve(static_cast<uint64_t>((in[0].numel() + 1) / 2));
  dropout(in[0], a.f(0), seed, offset, out[0], out[1]);
}

const KernelRegistrar kDropoutKernels{DeviceType::CPU, {
    {dropout_op, dropout_kernel},
}};

}  // namespace
}  // namespace cpu
}  // namespace nabla

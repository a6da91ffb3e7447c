// The CPU kernels of sort and topk (ops/sort_ops.cpp).
#include "nabla/kernels/cpu/sort.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {

extern const OpDef sort_op, topk_op;

namespace cpu {
namespace {

void sort_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) { sort(in[0], a.i(0), a.b(1), out[0], out[1]); }

void topk_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  topk(in[0], a.i(0), a.i(1), a.b(2), a.b(3), out[0], out[1]);
}

const KernelRegistrar kSortKernels{DeviceType::CPU, {
    {sort_op, sort_kernel},
    {topk_op, topk_kernel},
}};

}  // namespace
}  // namespace cpu
}  // namespace nabla

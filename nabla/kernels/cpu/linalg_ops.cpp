// The CPU kernels of mm and bmm (ops/linalg_ops.cpp), on BLAS (kernels/cpu/gemm.h).
#include "nabla/kernels/cpu/gemm.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {

extern const OpDef mm_op, bmm_op;

namespace cpu {
namespace {

Tensor as_batch_of_one(const Tensor& m) {
  return make_view(m, {1, m.sizes()[0], m.sizes()[1]}, {0, m.strides()[0], m.strides()[1]}, m.storage_offset());
}

void mm_kernel(Inputs in, const Attrs&, std::span<Tensor> out) {
  batched_gemm(as_batch_of_one(in[0]), as_batch_of_one(in[1]), out[0]);
}

void bmm_kernel(Inputs in, const Attrs&, std::span<Tensor> out) { batched_gemm(in[0], in[1], out[0]); }

const KernelRegistrar kLinalgKernels{DeviceType::CPU, {
    {mm_op, mm_kernel},
    {bmm_op, bmm_kernel},
}};

}  // namespace
}  // namespace cpu
}  // namespace nabla

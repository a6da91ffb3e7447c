// The CPU kernels of mm and bmm (ops/linalg_ops.cpp), on BLAS and oneDNN (kernels/cpu/gemm.h).
#include "nabla/kernels/cpu/gemm.h"
#include "nabla/ops/kernel_registry.h"
#include "nabla/ops/reduced_float.h"

namespace nabla {

extern const OpDef mm_op, bmm_op;

namespace cpu {
namespace {

Tensor as_batch_of_one(const Tensor& m) {
  return make_view(m, {1, m.sizes()[0], m.sizes()[1]}, {0, m.strides()[0], m.strides()[1]}, m.storage_offset());
}

// bfloat16 runs on oneDNN's bfloat16 matmul (the ops are kNativeReducedFloat
// for it); float16, and bfloat16 where that declines, in float32.
void mm_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  Tensor x = as_batch_of_one(in[0]), y = as_batch_of_one(in[1]);
  if (!is_reduced_float(out[0].dtype())) return batched_gemm(x, y, out[0]);
  if (!batched_gemm_reduced(x, y, as_batch_of_one(out[0]))) run_in_float32(mm_op, mm_kernel, in, a, out);
}

void bmm_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  if (!is_reduced_float(out[0].dtype())) return batched_gemm(in[0], in[1], out[0]);
  if (!batched_gemm_reduced(in[0], in[1], out[0])) run_in_float32(bmm_op, bmm_kernel, in, a, out);
}

const KernelRegistrar kLinalgKernels{DeviceType::CPU, {
    {mm_op, mm_kernel},
    {bmm_op, bmm_kernel},
}};

}  // namespace
}  // namespace cpu
}  // namespace nabla

// The CPU kernels of embedding and embedding_backward (ops/embedding_ops.cpp).
#include "nabla/core/user_op.h"
#include "nabla/kernels/cpu/embedding.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {

extern const OpDef embedding_op, embedding_backward_op;

namespace cpu {
namespace {

void embedding_kernel(Inputs in, const Attrs&, std::span<Tensor> out) { embedding(in[0], in[1], out[0]); }

void embedding_backward_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) try {
  embedding_backward(in[0], in[1], a.i(1), out[0]);
} catch (const Error&) {
  detail::rethrow_naming("embedding_backward");  // the kernel's index check says "embedding"
}

const KernelRegistrar kEmbeddingKernels{DeviceType::CPU, {
    {embedding_op, embedding_kernel},
    {embedding_backward_op, embedding_backward_kernel},
}};

}  // namespace
}  // namespace cpu
}  // namespace nabla

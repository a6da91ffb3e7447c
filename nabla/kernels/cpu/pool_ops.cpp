// The CPU kernels of the pooling ops and their backward ops (ops/pool_ops.cpp).
#include "nabla/kernels/cpu/pool.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {

extern const OpDef max_pool2d_op, max_pool2d_backward_op, max_pool2d_gather_op, avg_pool2d_op, avg_pool2d_backward_op,
    adaptive_avg_pool2d_op, adaptive_avg_pool2d_backward_op;

namespace cpu {
namespace {

AvgPoolOptions avg_options(const Attrs& a, std::size_t at) { return {a.b(at + 4), a.i(at + 5)}; }

void max_pool2d_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  max_pool2d_forward(in[0], out[0], out[1], max_geometry("max_pool2d", in[0].sizes(), a));
}

void max_backward_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  max_pool2d_backward(in[0], in[1], out[0], plane_geometry(a.ints(0), in[0]));
}

void max_gather_kernel(Inputs in, const Attrs&, std::span<Tensor> out) {
  max_pool2d_gather(in[0], in[1], out[0], plane_geometry(in[0].sizes(), in[1]));
}

void avg_pool2d_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  avg_pool2d_forward(in[0], out[0], avg_geometry("avg_pool2d", in[0].sizes(), a, 0), avg_options(a, 0));
}

void avg_backward_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  avg_pool2d_backward(in[0], out[0], avg_geometry("avg_pool2d_backward", a.ints(0), a, 1), avg_options(a, 1));
}

void adaptive_kernel(Inputs in, const Attrs&, std::span<Tensor> out) {
  adaptive_avg_pool2d_forward(in[0], out[0], plane_geometry(in[0].sizes(), out[0]));
}

void adaptive_backward_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  adaptive_avg_pool2d_backward(in[0], out[0], plane_geometry(a.ints(0), in[0]));
}

const KernelRegistrar kPoolKernels{DeviceType::CPU, {
    {max_pool2d_op, max_pool2d_kernel},
    {max_pool2d_backward_op, max_backward_kernel},
    {max_pool2d_gather_op, max_gather_kernel},
    {avg_pool2d_op, avg_pool2d_kernel},
    {avg_pool2d_backward_op, avg_backward_kernel},
    {adaptive_avg_pool2d_op, adaptive_kernel},
    {adaptive_avg_pool2d_backward_op, adaptive_backward_kernel},
}};

}  // namespace
}  // namespace cpu
}  // namespace nabla

// The CPU kernels of conv2d, conv_transpose2d and conv2d_weight_grad
// (ops/conv_ops.cpp): im2col + GEMM, or oneDNN where built in (kernels/cpu/conv.h).
// bfloat16 (autocast's convolutions, ops/autocast.h) runs on oneDNN's
// bfloat16 primitives, which is why the ops are kNativeReducedFloat; float16,
// and bfloat16 where oneDNN declines (no AVX-512, or switched off), compute
// in float32.
#include "nabla/kernels/cpu/conv.h"
#include "nabla/kernels/cpu/conv_onednn.h"
#include "nabla/ops/kernel_registry.h"
#include "nabla/ops/reduced_float.h"

namespace nabla {

extern const OpDef conv2d_op, conv_transpose2d_op, conv2d_weight_grad_op;

namespace cpu {
namespace {

// For a float16/bfloat16 output: runs `onednn` for bfloat16 (true when it
// did), else `kernel` in float32. False for other dtypes (nothing done).
template <class OneDnn>
bool reduced(const OpDef& op, KernelFn kernel, Inputs in, const Attrs& a, std::span<Tensor> out, OneDnn&& onednn) {
  if (!is_reduced_float(out[0].dtype())) return false;
  if (out[0].numel() == 0) return true;
  if (!(out[0].dtype() == kBFloat16 && conv_onednn_enabled() && onednn())) run_in_float32(op, kernel, in, a, out);
  return true;
}

void conv2d_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  Conv2dGeometry g = conv2d_geometry("conv2d", in[0], in[1].sizes(), a);
  Tensor bias = in.size() > 2 ? in[2] : Tensor();
  if (reduced(conv2d_op, conv2d_kernel, in, a, out, [&] { return onednn_conv2d_forward(in[0], in[1], bias, out[0], g); }))
    return;
  conv2d_forward(in[0], in[1], bias, out[0], g);
}

void conv_transpose2d_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  Conv2dGeometry g = conv_transpose2d_geometry("conv_transpose2d", in[0], in[1], a);
  Tensor bias = in.size() > 2 ? in[2] : Tensor();
  if (reduced(conv_transpose2d_op, conv_transpose2d_kernel, in, a, out,
              [&] { return onednn_conv_transpose2d_forward(in[0], in[1], bias, out[0], g); }))
    return;
  conv_transpose2d_forward(in[0], in[1], bias, out[0], g);
}

void weight_grad_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  Conv2dGeometry g = weight_grad_geometry("conv2d_weight_grad", in[0], in[1], a);
  if (reduced(conv2d_weight_grad_op, weight_grad_kernel, in, a, out,
              [&] { return onednn_conv2d_weight_grad(in[0], in[1], out[0], g); }))
    return;
  conv2d_weight_grad(in[0], in[1], out[0], g);
}

const KernelRegistrar kConvKernels{DeviceType::CPU, {
    {conv2d_op, conv2d_kernel},
    {conv_transpose2d_op, conv_transpose2d_kernel},
    {conv2d_weight_grad_op, weight_grad_kernel},
}};

}  // namespace
}  // namespace cpu
}  // namespace nabla

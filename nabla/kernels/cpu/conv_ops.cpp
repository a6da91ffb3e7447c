// The CPU kernels of conv2d, conv_transpose2d and conv2d_weight_grad
// (ops/conv_ops.cpp): im2col + GEMM, or oneDNN where built in (kernels/cpu/conv.h).
// bfloat16 (autocast's convolutions, ops/autocast.h) runs on oneDNN's
// bfloat16 primitives, which is why the ops are kNativeReducedFloat; float16,
// and bfloat16 where oneDNN declines (no AVX-512, or switched off), compute
// in float32.
#include "nabla/kernels/cpu/conv.h"

#include <cstdint>

#include "nabla/kernels/cpu/conv_onednn.h"
#include "nabla/kernels/cpu/conv_small.h"
#include "nabla/kernels/cpu/elementwise.h"
#include "nabla/kernels/cpu/loops.h"
#include "nabla/ops/kernel_registry.h"
#include "nabla/ops/reduced_float.h"

namespace nabla {

extern const OpDef conv2d_op, conv2d_relu_op, conv_transpose2d_op, conv2d_weight_grad_op;

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

// Whether every element of a float32 tensor is finite (no NaN, no inf): an
// OR over the exponent bits, which vectorizes.
bool all_finite_f32(const Tensor& t) {
  if (!t.defined()) return true;
  Tensor c = contiguous_input(t);
  const uint32_t* p = static_cast<const uint32_t*>(c.raw_data());
  uint32_t non_finite = 0;
  for (int64_t i = 0, n = c.numel(); i < n; ++i)
    non_finite |= static_cast<uint32_t>((p[i] & 0x7f800000u) == 0x7f800000u);
  return non_finite == 0;
}

// conv2d then ReLU: one oneDNN primitive with a ReLU post-op for float32,
// else the conv2d kernel and ReLU over its output in place (NaN kept, as relu).
// oneDNN's ReLU makes NaN 0 (a max with 0), where relu keeps it: operands
// with a NaN or inf (the only way to a NaN output, but for sums that
// overflow to both +inf and -inf) take the second path.
void conv2d_relu_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  Conv2dGeometry g = conv2d_geometry("conv2d_relu", in[0], in[1].sizes(), a);
  const Tensor bias = in.size() > 2 ? in[2] : Tensor();
  if (out[0].numel() == 0) return;
  // Few input taps: the direct kernels apply the ReLU themselves (NaN kept).
  if (conv_onednn_enabled() && small_conv2d_forward(in[0], in[1], bias, out[0], g, /*relu=*/true)) return;
  if (conv_onednn_enabled() && out[0].dtype() == kFloat32 && all_finite_f32(in[0]) && all_finite_f32(in[1]) &&
      all_finite_f32(bias) && onednn_conv2d_relu_forward(in[0], in[1], bias, out[0], g))
    return;
  conv2d_forward(in[0], in[1], bias, out[0], g);
  auto relu_in_place = [&]<class T>() { map1<T, T>(out[0], out[0], [](T v) { return !(v <= T(0)) ? v : T(0); }); };
  if (out[0].dtype() == kFloat64) relu_in_place.operator()<double>();
  else relu_in_place.operator()<float>();  // conv2d's kernels take float32 and float64 only
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
    {conv2d_relu_op, conv2d_relu_kernel},
    {conv_transpose2d_op, conv_transpose2d_kernel},
    {conv2d_weight_grad_op, weight_grad_kernel},
}};

}  // namespace
}  // namespace cpu
}  // namespace nabla

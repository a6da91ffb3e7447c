// Accelerator kernels (OpenCL, CUDA) of conv2d, conv_transpose2d and conv2d_weight_grad
// (ops/conv_ops.cpp): im2col / col2im in device C (kernels/device/conv.h)
// and the backend's GEMM (runtime.h), float32 and float64. Samples are unfolded
// in blocks whose column matrix stays under a fixed budget, so memory stays
// bounded for large batches while small samples share one launch.
// Registers nothing when the backend has no GEMM.
#include "nabla/kernels/accel/register.h"

#include <algorithm>
#include <string>

#include "nabla/core/grad_mode.h"
#include "nabla/kernels/device/conv.h"
#include "nabla/kernels/accel/runtime.h"
#include "nabla/ops/conv_geometry.h"
#include "nabla/ops/kernel_registry.h"
#include "nabla/ops/ops.h"

namespace nabla {
extern const OpDef conv2d_op, conv2d_relu_op, conv_transpose2d_op,
    conv2d_weight_grad_op;  // ops/conv_ops.cpp

namespace accel {
namespace {

// Column-matrix budget in elements (as the CPU's: 32 MiB of float32).
constexpr int64_t kColumnBudget = int64_t{8} << 20;

std::size_t sz(int64_t v) { return static_cast<std::size_t>(v); }

// How many samples share one column matrix.
int64_t block_size(const Conv2dGeometry& g) {
  const int64_t per_sample = std::max<int64_t>(1, g.in_channels * g.kernel_h * g.kernel_w * g.out_h * g.out_w);
  return std::clamp<int64_t>(kColumnBudget / per_sample, 1, std::max<int64_t>(g.batch, 1));
}

// One kernel of the conv program (one program per dtype: the three kernels
// share its source, so it is compiled once).
Launch conv_launch(DeviceRef dev, const char* kernel, DType t, const char* op) {
  NABLA_CHECK(t == kFloat32 || t == kFloat64, op, ": on an accelerator takes float32 or float64, got ", t);
  check_dtype(op, t, dev);
  const auto source = [t] { return program({{"T", t}}, device_c::kConvKernels); };
  return Launch(dev, std::string("conv|") + kernel + "|" + std::string(dtype_name(t)), kernel, source, op);
}

// The work items im2col wants at least: a GPU needs tens of thousands of
// threads to be busy, and a CPU (PoCL) loses little when rows are split only
// below this count.
constexpr int64_t kIm2colItems = int64_t{1} << 16;

// Column-matrix entries per im2col work item for `rows` rows of P entries:
// whole rows when there are kIm2colItems rows or more, else rows split into
// equal spans so that about kIm2colItems items run.
int64_t im2col_span(int64_t rows, int64_t P) {
  const int64_t chunks =
      std::clamp<int64_t>((kIm2colItems + rows - 1) / std::max<int64_t>(rows, 1), 1, std::max<int64_t>(P, 1));
  return std::max<int64_t>(1, (P + chunks - 1) / chunks);
}

// cols <- im2col of samples [n0, n0 + nb) of x (any strides).
void im2col(DeviceRef dev, const char* op, const Tensor& x, int64_t n0, int64_t nb, const Conv2dGeometry& g,
            const Tensor& cols) {
  const int64_t rows = g.in_channels * g.kernel_h * g.kernel_w * nb, P = g.out_h * g.out_w;
  const int64_t span = im2col_span(rows, P);
  Launch k = conv_launch(dev, "nb_im2col", x.dtype(), op);
  k.arg(cols).arg(x);
  for (int d = 0; d < 4; ++d) k.arg(x.stride(d));
  for (int64_t v : {n0, nb, g.in_channels, g.in_h, g.in_w, g.kernel_h, g.kernel_w, g.out_h, g.out_w, g.stride_h,
                    g.stride_w, g.pad_h, g.pad_w, g.dilation_h, g.dilation_w, span})
    k.arg(v);
  k.run(sz(rows * ((P + span - 1) / span)));
}

// The GEMM operand `offset` elements into t (from its storage offset).
GemmMatrix at(const Tensor& t, int64_t offset, int64_t ld, int64_t batch_stride = 0, bool transpose = false) {
  return {handle_of(t), sz(t.storage_offset() + offset), sz(ld), sz(batch_stride), transpose};
}


// out [N, OC, OH, OW] = conv2d(x, w) + bias: per block, the bias rows, then
// for each group one GEMM batched over the block's samples:
//   out[n, group] [OCg, P] += W_group [OCg, CgK] @ cols[group rows, sample n] [CgK, P].
void conv2d_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const char* op = "conv2d";
  const Conv2dGeometry g = conv2d_geometry(op, in[0], in[1].sizes(), a);
  Tensor& y = out[0];
  if (y.numel() == 0) return;
  NoGradGuard no_grad;  // the copies below are part of this kernel
  const DeviceRef dev = device_ref(y.device(), op);
  const Tensor w = dense(in[1]);
  const Tensor bias = in.size() > 2 ? dense(in[2]) : Tensor();
  const int64_t P = g.out_h * g.out_w, K = g.kernel_h * g.kernel_w, OC = g.out_channels;
  const int64_t Cg = g.in_channels / g.groups, OCg = OC / g.groups, CgK = Cg * K;
  const int64_t B = block_size(g);
  const Tensor cols = make_empty({g.in_channels * K * B * P}, y.dtype(), y.device(), op);
  for (int64_t n0 = 0; n0 < g.batch; n0 += B) {
    const int64_t nb = std::min(B, g.batch - n0), ld = nb * P;
    im2col(dev, op, in[0], n0, nb, g, cols);
    if (bias.defined()) {
      Launch k = conv_launch(dev, "nb_bias_rows", y.dtype(), op);
      k.arg(y).arg(bias).arg(OC).arg(P).arg(n0 * OC * P).arg(nb * OC * P);
      k.run(sz(nb * OC * P));
    }
    for (int64_t grp = 0; grp < g.groups; ++grp)
      gemm(op, y.dtype(), dev, sz(OCg), sz(P), sz(CgK), at(w, grp * OCg * CgK, CgK), at(cols, grp * CgK * ld, ld, P),
           bias.defined() ? 1.0 : 0.0, at(y, (n0 * OC + grp * OCg) * P, P, OC * P), sz(nb));
  }
}

// conv2d_relu: the convolution above, then ReLU over its output (the fused
// one-pass kernel is the CPU's; eager code and graphs send device tensors to
// conv2d and relu instead, so this runs only when the op is called directly).
void conv2d_relu_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  conv2d_kernel(in, a, out);
  if (out[0].numel() == 0) return;
  NoGradGuard no_grad;
  out[0].copy_(relu(out[0]));
}

// out [N, C, H, W] = conv_transpose2d(x, w) + bias, x [N, OC, OH, OW] (g is
// the geometry of the conv2d whose input gradient this is): per block, for
// each group one GEMM batched over the samples,
//   cols[group rows, sample n] [CgK, P] = W_group^T [CgK, OCg] @ x[n, group] [OCg, P],
// then col2im (with the bias) into the block's outputs.
void conv_transpose2d_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const char* op = "conv_transpose2d";
  const Conv2dGeometry g = conv_transpose2d_geometry(op, in[0], in[1], a);
  Tensor& y = out[0];
  if (y.numel() == 0) return;
  NoGradGuard no_grad;
  const DeviceRef dev = device_ref(y.device(), op);
  const Tensor x = dense(in[0]), w = dense(in[1]);
  const Tensor bias = in.size() > 2 ? dense(in[2]) : Tensor();
  const int64_t P = g.out_h * g.out_w, K = g.kernel_h * g.kernel_w, C = g.in_channels, OC = g.out_channels;
  const int64_t Cg = C / g.groups, OCg = OC / g.groups, CgK = Cg * K;
  const int64_t B = block_size(g);
  const Tensor cols = make_empty({C * K * B * P}, y.dtype(), y.device(), op);
  for (int64_t n0 = 0; n0 < g.batch; n0 += B) {
    const int64_t nb = std::min(B, g.batch - n0), ld = nb * P;
    for (int64_t grp = 0; grp < g.groups; ++grp)
      gemm(op, y.dtype(), dev, sz(CgK), sz(P), sz(OCg), at(w, grp * OCg * CgK, CgK, 0, true),
           at(x, (n0 * OC + grp * OCg) * P, P, OC * P), 0.0, at(cols, grp * CgK * ld, ld, P), sz(nb));
    Launch k = conv_launch(dev, "nb_col2im", y.dtype(), op);
    k.arg(y).arg(cols);
    if (bias.defined())
      k.arg(bias).arg(int64_t{1});
    else
      k.arg(y).arg(int64_t{0});  // no bias: any buffer, never read
    for (int64_t v : {n0, nb, C, g.in_h, g.in_w, g.kernel_h, g.kernel_w, g.out_h, g.out_w, g.stride_h, g.stride_w,
                      g.pad_h, g.pad_w, g.dilation_h, g.dilation_w})
      k.arg(v);
    k.run(sz(nb * C * g.in_h));
  }
}

// gw [OC, Cg, KH, KW] = the sum over samples of gy[n, group] [OCg, P] @
// cols[group rows, sample n]^T [P, CgK]: per block, grad_output packed to
// [OC, nb * P] (the block's samples side by side, as the columns are), then
// one GEMM per group over all of them, accumulating across blocks.
void weight_grad_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const char* op = "conv2d_weight_grad";
  const Conv2dGeometry g = weight_grad_geometry(op, in[0], in[1], a);
  Tensor& gw = out[0];
  if (gw.numel() == 0) return;
  NoGradGuard no_grad;
  const DeviceRef dev = device_ref(gw.device(), op);
  const int64_t P = g.out_h * g.out_w, K = g.kernel_h * g.kernel_w, OC = g.out_channels;
  const int64_t Cg = g.in_channels / g.groups, OCg = OC / g.groups, CgK = Cg * K;
  if (g.batch == 0 || P == 0) return zero_fill(gw, op);
  const int64_t B = block_size(g);
  const Tensor cols = make_empty({g.in_channels * K * B * P}, gw.dtype(), gw.device(), op);
  for (int64_t n0 = 0; n0 < g.batch; n0 += B) {
    const int64_t nb = std::min(B, g.batch - n0), ld = nb * P;
    im2col(dev, op, in[0], n0, nb, g, cols);
    const Tensor gy = dense(permute(narrow(in[1], 0, n0, nb), {1, 0, 2, 3}));  // [OC, nb, OH, OW]
    for (int64_t grp = 0; grp < g.groups; ++grp)
      gemm(op, gw.dtype(), dev, sz(OCg), sz(CgK), sz(ld), at(gy, grp * OCg * ld, ld),
           at(cols, grp * CgK * ld, ld, 0, true), n0 == 0 ? 0.0 : 1.0, at(gw, grp * OCg * CgK, CgK));
  }
}

}  // namespace

void register_conv_kernels(DeviceType type) {
  if (!find_runtime(type)->has_gemm()) return;
  register_kernel(conv2d_op, type, conv2d_kernel);
  register_kernel(conv2d_relu_op, type, conv2d_relu_kernel);
  register_kernel(conv_transpose2d_op, type, conv_transpose2d_kernel);
  register_kernel(conv2d_weight_grad_op, type, weight_grad_kernel);
}

}  // namespace accel
}  // namespace nabla

// Accelerator kernels (OpenCL, CUDA) of the pooling ops and their backward ops (ops/pool_ops.cpp):
// max_pool2d (+ backward, gather), avg_pool2d (+ backward) and
// adaptive_avg_pool2d (+ backward), in device C (kernels/device/pool.h),
// float32 and float64, with the CPU kernels' results (ties, NaN, padding,
// ceil_mode, count_include_pad, divisor_override).
#include "nabla/kernels/accel/register.h"

#include <string>

#include "nabla/core/grad_mode.h"
#include "nabla/kernels/device/pool.h"
#include "nabla/kernels/accel/runtime.h"
#include "nabla/ops/kernel_registry.h"
#include "nabla/ops/pool_geometry.h"

namespace nabla {
extern const OpDef max_pool2d_op, max_pool2d_backward_op, max_pool2d_gather_op, avg_pool2d_op, avg_pool2d_backward_op,
    adaptive_avg_pool2d_op, adaptive_avg_pool2d_backward_op;  // ops/pool_ops.cpp

namespace accel {
namespace {

// One kernel of the pooling program (one program per dtype, shared source).
// Inputs made dense() are held in locals until the launch is enqueued.
Launch pool_launch(const Tensor& out, const char* kernel, const char* op) {
  const DeviceRef dev = device_ref(out.device(), op);
  const DType t = out.dtype();
  NABLA_CHECK(t == kFloat32 || t == kFloat64, op, ": on an accelerator takes float32 or float64, got ", t);
  check_dtype(op, t, dev);
  const auto source = [t] { return program({{"T", t}}, device_c::kPoolKernels); };
  return Launch(dev, std::string("pool|") + kernel + "|" + std::string(dtype_name(t)), kernel, source, op);
}

std::size_t sz(int64_t v) { return static_cast<std::size_t>(v); }

// H, W, OH, OW, KH, KW, SH, SW, PH, PW
void window_args(Launch& k, const Pool2dGeometry& g) {
  for (int64_t v : {g.in_h, g.in_w, g.out_h, g.out_w, g.kernel_h, g.kernel_w, g.stride_h, g.stride_w, g.pad_h, g.pad_w})
    k.arg(v);
}

void max_pool2d_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const char* op = "max_pool2d";
  const Pool2dGeometry g = max_geometry(op, in[0].sizes(), a);
  NoGradGuard no_grad;
  const Tensor x = dense(in[0]);
  Launch k = pool_launch(out[0], "nb_max_pool2d", op);
  k.arg(out[0]).arg(out[1]).arg(x).arg(g.planes);
  window_args(k, g);
  k.arg(g.dilation_h).arg(g.dilation_w).run(sz(g.planes * g.out_h));  // one item per output row
}

void max_backward_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const char* op = "max_pool2d_backward";
  const Pool2dGeometry g = plane_geometry(a.ints(0), in[0]);
  NoGradGuard no_grad;
  const Tensor x = dense(in[0]), idx = dense(in[1]);
  Launch k = pool_launch(out[0], "nb_max_pool2d_backward", op);
  k.arg(out[0]).arg(x).arg(idx).arg(g.planes).arg(g.in_h * g.in_w).arg(g.out_h * g.out_w);
  k.run(sz(g.planes));
}

void max_gather_kernel(Inputs in, const Attrs&, std::span<Tensor> out) {
  const char* op = "max_pool2d_gather";
  const Pool2dGeometry g = plane_geometry(in[0].sizes(), in[1]);
  NoGradGuard no_grad;
  const Tensor x = dense(in[0]), idx = dense(in[1]);
  Launch k = pool_launch(out[0], "nb_max_pool2d_gather", op);
  k.arg(out[0]).arg(x).arg(idx).arg(g.planes).arg(g.in_h * g.in_w).arg(g.out_h * g.out_w);
  k.run(sz(g.planes * g.out_h * g.out_w));
}

// avg_pool2d's attrs from `at` on: kernel_size, stride, padding, ceil_mode,
// count_include_pad, divisor_override.
void avg_options(Launch& k, const Attrs& a, std::size_t at) { k.arg(int64_t{a.b(at + 4)}).arg(a.i(at + 5)); }

void avg_pool2d_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const char* op = "avg_pool2d";
  const Pool2dGeometry g = avg_geometry(op, in[0].sizes(), a, 0);
  NoGradGuard no_grad;
  const Tensor x = dense(in[0]);
  Launch k = pool_launch(out[0], "nb_avg_pool2d", op);
  k.arg(out[0]).arg(x).arg(g.planes);
  window_args(k, g);
  avg_options(k, a, 0);
  k.run(sz(g.planes * g.out_h));  // one item per output row
}

void avg_backward_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const char* op = "avg_pool2d_backward";
  const Pool2dGeometry g = avg_geometry(op, a.ints(0), a, 1);
  NoGradGuard no_grad;
  const Tensor x = dense(in[0]);
  Launch k = pool_launch(out[0], "nb_avg_pool2d_backward", op);
  k.arg(out[0]).arg(x).arg(g.planes);
  window_args(k, g);
  avg_options(k, a, 1);
  k.run(sz(g.planes));
}

void adaptive_kernel(Inputs in, const Attrs&, std::span<Tensor> out) {
  const char* op = "adaptive_avg_pool2d";
  const Pool2dGeometry g = plane_geometry(in[0].sizes(), out[0]);
  NoGradGuard no_grad;
  const Tensor x = dense(in[0]);
  Launch k = pool_launch(out[0], "nb_adaptive_avg_pool2d", op);
  k.arg(out[0]).arg(x).arg(g.planes).arg(g.in_h).arg(g.in_w).arg(g.out_h).arg(g.out_w);
  k.run(sz(g.planes * g.out_h * g.out_w));
}

void adaptive_backward_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const char* op = "adaptive_avg_pool2d_backward";
  const Pool2dGeometry g = plane_geometry(a.ints(0), in[0]);
  NoGradGuard no_grad;
  const Tensor x = dense(in[0]);
  Launch k = pool_launch(out[0], "nb_adaptive_avg_pool2d_backward", op);
  k.arg(out[0]).arg(x).arg(g.planes).arg(g.in_h).arg(g.in_w).arg(g.out_h).arg(g.out_w);
  k.run(sz(g.planes));
}

}  // namespace

void register_pool_kernels(DeviceType type) {
  register_kernel(max_pool2d_op, type, max_pool2d_kernel);
  register_kernel(max_pool2d_backward_op, type, max_backward_kernel);
  register_kernel(max_pool2d_gather_op, type, max_gather_kernel);
  register_kernel(avg_pool2d_op, type, avg_pool2d_kernel);
  register_kernel(avg_pool2d_backward_op, type, avg_backward_kernel);
  register_kernel(adaptive_avg_pool2d_op, type, adaptive_kernel);
  register_kernel(adaptive_avg_pool2d_backward_op, type, adaptive_backward_kernel);
}

}  // namespace accel
}  // namespace nabla

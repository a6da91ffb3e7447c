// Accelerator kernels (OpenCL, CUDA) of upsample_nearest2d, upsample_bilinear2d and their
// backward ops (ops/interpolate_ops.cpp), in device C
// (kernels/device/interpolate.h), float32 and float64.
#include "nabla/kernels/accel/register.h"

#include <string>

#include "nabla/core/grad_mode.h"
#include "nabla/kernels/device/interpolate.h"
#include "nabla/kernels/accel/runtime.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {
extern const OpDef upsample_nearest2d_op, upsample_nearest2d_backward_op, upsample_bilinear2d_op,
    upsample_bilinear2d_backward_op;  // ops/interpolate_ops.cpp

namespace accel {
namespace {

// The per-axis factors of the CPU's taps (kernels/cpu/interpolate.cpp's
// make_taps), each computed in the type the CPU computes it in: T for the
// bilinear scale, float for the nearest step.
struct AxisFactors {
  float step = 0;
  double scale = 0;  // a T value (exact in double)
};
template <class T>
AxisFactors axis_factors(int64_t in, int64_t out, bool bilinear, bool align_corners, double user_scale) {
  AxisFactors f;
  f.step = user_scale > 0 ? static_cast<float>(1.0 / user_scale) : static_cast<float>(in) / static_cast<float>(out);
  if (!bilinear) return f;
  T scale;
  if (align_corners)
    scale = out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  else
    scale = user_scale > 0 ? static_cast<T>(1.0 / user_scale) : static_cast<T>(in) / static_cast<T>(out);
  f.scale = scale;
  return f;
}

// attrs: output_size, [align_corners,] scale_h, scale_w (none: 0).
// `small` is the low-resolution side (x, or the gradient's result), `big`
// the other.
template <bool Bilinear, bool Backward>
void resample_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const char* op = Backward ? (Bilinear ? "upsample_bilinear2d_backward" : "upsample_nearest2d_backward")
                            : (Bilinear ? "upsample_bilinear2d" : "upsample_nearest2d");
  constexpr std::size_t kScaleAt = Bilinear ? 2 : 1;
  const bool align_corners = Bilinear && a.b(1);
  const double scale_h = a.is_none(kScaleAt) ? 0.0 : a.f(kScaleAt);
  const double scale_w = a.is_none(kScaleAt + 1) ? 0.0 : a.f(kScaleAt + 1);
  NoGradGuard no_grad;
  const Tensor x = dense(in[0]);
  const Tensor& small = Backward ? out[0] : x;
  const Tensor& big = Backward ? x : out[0];
  const int64_t planes = small.size(0) * small.size(1), H = small.size(2), W = small.size(3);
  const int64_t OH = big.size(2), OW = big.size(3);
  const DType t = out[0].dtype();
  NABLA_CHECK(t == kFloat32 || t == kFloat64, op, ": on an accelerator takes float32 or float64, got ", t);
  const DeviceRef dev = device_ref(out[0].device(), op);
  check_dtype(op, t, dev);
  auto factors = [&](int64_t i, int64_t o, double s) {
    return t == kFloat32 ? axis_factors<float>(i, o, Bilinear, align_corners, s)
                         : axis_factors<double>(i, o, Bilinear, align_corners, s);
  };
  const AxisFactors fh = factors(H, OH, scale_h), fw = factors(W, OW, scale_w);
  const char* kernel = Backward ? "nb_upsample2d_backward" : "nb_upsample2d";
  const auto source = [t] { return program({{"T", t}}, device_c::kInterpolateKernels); };
  Launch k(dev, std::string("interpolate|") + kernel + "|" + std::string(dtype_name(t)), kernel, source, op);
  k.arg(out[0]).arg(x).arg(planes).arg(H).arg(W).arg(OH).arg(OW).arg(int64_t{Bilinear}).arg(int64_t{align_corners});
  k.arg(fh.step).arg(fw.step).arg_as(t, fh.scale).arg_as(t, fw.scale);
  k.run(static_cast<std::size_t>(Backward ? planes : planes * OH * OW));
}

}  // namespace

void register_interpolate_kernels(DeviceType type) {
  register_kernel(upsample_nearest2d_op, type, resample_kernel<false, false>);
  register_kernel(upsample_nearest2d_backward_op, type, resample_kernel<false, true>);
  register_kernel(upsample_bilinear2d_op, type, resample_kernel<true, false>);
  register_kernel(upsample_bilinear2d_backward_op, type, resample_kernel<true, true>);
}

}  // namespace accel
}  // namespace nabla

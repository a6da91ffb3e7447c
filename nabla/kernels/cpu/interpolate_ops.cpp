// The CPU kernels of the upsample ops and their backward ops
// (ops/interpolate_ops.cpp).
#include "nabla/kernels/cpu/interpolate.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {

extern const OpDef upsample_nearest2d_op, upsample_nearest2d_backward_op, upsample_bilinear2d_op,
    upsample_bilinear2d_backward_op;

namespace cpu {
namespace {

template <bool Bilinear>
constexpr std::size_t kScaleAt = Bilinear ? 2 : 1;  // index of scale_h in the attrs

template <bool Bilinear>
ResampleSpec spec_of(const Attrs& a) {
  ResampleSpec s;
  s.bilinear = Bilinear;
  s.align_corners = Bilinear && a.b(1);
  constexpr std::size_t k = kScaleAt<Bilinear>;
  s.scale_h = a.is_none(k) ? 0.0 : a.f(k);
  s.scale_w = a.is_none(k + 1) ? 0.0 : a.f(k + 1);
  return s;
}

template <bool Bilinear>
void upsample_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  resample2d(in[0], spec_of<Bilinear>(a), out[0]);
}

template <bool Bilinear>
void upsample_backward_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  resample2d_backward(in[0], spec_of<Bilinear>(a), out[0]);
}

const KernelRegistrar kInterpolateKernels{DeviceType::CPU, {
    {upsample_nearest2d_op, upsample_kernel<false>},
    {upsample_nearest2d_backward_op, upsample_backward_kernel<false>},
    {upsample_bilinear2d_op, upsample_kernel<true>},
    {upsample_bilinear2d_backward_op, upsample_backward_kernel<true>},
}};

}  // namespace
}  // namespace cpu
}  // namespace nabla

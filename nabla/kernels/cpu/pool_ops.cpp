// The CPU kernels of the pooling ops and their backward ops (ops/pool_ops.cpp).
#include "nabla/core/memory_format.h"
#include "nabla/kernels/cpu/elementwise.h"
#include "nabla/kernels/cpu/pool.h"
#include "nabla/kernels/cpu/pool_nhwc.h"
#include "nabla/ops/kernel_registry.h"
#include "nabla/ops/reduced_float.h"

namespace nabla {

extern const OpDef max_pool2d_op, max_pool2d_backward_op, max_pool2d_gather_op, avg_pool2d_op, avg_pool2d_backward_op,
    adaptive_avg_pool2d_op, adaptive_avg_pool2d_backward_op;

namespace cpu {
namespace {

// The pooling kernels work on NCHW planes: a channels-last output (the
// dispatcher's choice for a channels-last input) is computed in a contiguous
// buffer and copied in. (A native NHWC loop would save the two copies.)
template <class Fn>
void into_contiguous(std::span<Tensor> out, Fn&& fn) {
  bool all_contiguous = true;
  for (const Tensor& o : out) all_contiguous &= !o.defined() || o.is_contiguous();
  if (all_contiguous) return fn(out);
  TensorList tmp;
  for (const Tensor& o : out) tmp.push_back(o.defined() ? make_empty(o.sizes(), o.dtype(), o.device()) : o);
  fn(std::span<Tensor>(tmp.data(), tmp.size()));
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!out[i].defined() || tmp[i].is_same(out[i])) continue;
    const Tensor src[1] = {tmp[i]};
    cast_kernel(src, {}, out.subspan(i, 1));
  }
}

AvgPoolOptions avg_options(const Attrs& a, std::size_t at) { return {a.b(at + 4), a.i(at + 5)}; }

// Whether the outputs are channels-last (NHWC in memory, not also NCHW):
// max pooling then runs its NHWC kernels (pool_nhwc.h) on channels-last inputs.
bool nhwc_outputs(std::span<Tensor> out) {
  for (const Tensor& o : out)
    if (o.defined() && (o.is_contiguous() || !is_contiguous(o, MemoryFormat::ChannelsLast))) return false;
  return true;
}
// t in channels-last memory: itself, or a copy.
Tensor channels_last_input(const Tensor& t) {
  if (is_contiguous(t, MemoryFormat::ChannelsLast)) return t;
  Tensor c = make_empty(t.sizes(), t.dtype(), t.device(), MemoryFormat::ChannelsLast);
  const Tensor src[1] = {t};
  Tensor dst[1] = {c};
  cast_kernel(src, {}, dst);
  return c;
}

// max_pool2d and its backward are kNativeReducedFloat: bfloat16 runs on its
// own kernels (pool.h, pool_nhwc.h: the NHWC loops, the NCHW 2x2 kernels and
// backward); float16, and the NCHW bfloat16 forward pools those kernels do
// not take, are computed through float32 here.
void max_pool2d_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const Pool2dGeometry g = max_geometry("max_pool2d", in[0].sizes(), a);
  const bool nhwc = in[0].dim() == 4 && nhwc_outputs(out);
  if (is_reduced_float(in[0].dtype()) &&
      !(in[0].dtype() == kBFloat16 && (nhwc || max_pool2d_forward_takes_bf16(g))))
    return run_in_float32(max_pool2d_op, max_pool2d_kernel, in, a, out);
  if (nhwc) return max_pool2d_forward_nhwc(channels_last_input(in[0]), out[0], out[1], g);
  into_contiguous(out, [&](std::span<Tensor> out) { max_pool2d_forward(in[0], out[0], out[1], g); });
}

void max_backward_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  if (in[0].dtype() == kFloat16) return run_in_float32(max_pool2d_backward_op, max_backward_kernel, in, a, out);
  const Pool2dGeometry g = plane_geometry(a.ints(0), in[0]);
  if (in[0].dim() == 4 && nhwc_outputs(out))
    return max_pool2d_backward_nhwc(channels_last_input(in[0]), channels_last_input(in[1]), out[0], g);
  into_contiguous(out, [&](std::span<Tensor> out) { max_pool2d_backward(in[0], in[1], out[0], g); });
}

void max_gather_kernel(Inputs in, const Attrs&, std::span<Tensor> out) {
  into_contiguous(out, [&](std::span<Tensor> out) {
    max_pool2d_gather(in[0], in[1], out[0], plane_geometry(in[0].sizes(), in[1]));
  });
}

void avg_pool2d_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  into_contiguous(out, [&](std::span<Tensor> out) {
    avg_pool2d_forward(in[0], out[0], avg_geometry("avg_pool2d", in[0].sizes(), a, 0), avg_options(a, 0));
  });
}

void avg_backward_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  into_contiguous(out, [&](std::span<Tensor> out) {
    avg_pool2d_backward(in[0], out[0], avg_geometry("avg_pool2d_backward", a.ints(0), a, 1), avg_options(a, 1));
  });
}

void adaptive_kernel(Inputs in, const Attrs&, std::span<Tensor> out) {
  into_contiguous(out, [&](std::span<Tensor> out) {
    adaptive_avg_pool2d_forward(in[0], out[0], plane_geometry(in[0].sizes(), out[0]));
  });
}

void adaptive_backward_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  into_contiguous(out, [&](std::span<Tensor> out) {
    adaptive_avg_pool2d_backward(in[0], out[0], plane_geometry(a.ints(0), in[0]));
  });
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

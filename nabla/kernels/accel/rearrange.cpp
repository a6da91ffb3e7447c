// The accelerator kernels of flip, tril, triu (ops/rearrange_ops.cpp), cat
// (ops/join_ops.cpp), pad and pad_backward (ops/pad_ops.cpp), on the device C
// kernels of kernels/device/indexing.h. As on the CPU, cat, flip and the
// constant pad are strided copies (flip reads a view with negative strides),
// and every kernel here but pad_backward moves items, so it serves every
// dtype.
#include "nabla/kernels/accel/register.h"

#include <algorithm>
#include <cstring>

#include "nabla/kernels/accel/strided.h"
#include "nabla/ops/kernel_registry.h"
#include "nabla/ops/pad_mode.h"

namespace nabla {
extern const OpDef flip_op, tril_op, triu_op, cat_op, pad_op, pad_backward_op;

namespace accel {
namespace {

// attrs: dims (wrapped, distinct). x read from the last element of each
// flipped dim with that dim's stride negated.
void flip_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const Tensor& x = in[0];
  Shape strides = x.strides();
  int64_t offset = x.storage_offset();
  for (int64_t d : a.ints(0)) {
    const auto k = static_cast<std::size_t>(d);
    if (x.sizes()[k] == 0) return;
    offset += (x.sizes()[k] - 1) * strides[k];
    strides[k] = -strides[k];
  }
  copy_items(out[0], make_view(x, x.sizes(), strides, offset), "flip");
}

// attrs: diagonal.
template <bool Lower>
void triangle_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const char* op = Lower ? "tril" : "triu";
  const Tensor x = contiguous_items(in[0], op);
  const int64_t n = x.numel(), nd = x.dim();
  if (n == 0) return;
  Launch k = move_kernel(device_ref(x.device(), op), x.dtype(), "nb_triangle", op);
  k.arg(out[0]).arg(x).arg(n).arg(x.sizes()[static_cast<std::size_t>(nd - 2)]);
  k.arg(x.sizes()[static_cast<std::size_t>(nd - 1)]).arg(a.i(0)).arg(int64_t{Lower}).run(static_cast<std::size_t>(n));
}

// attrs: dim. Each input copied into its slice of out.
void cat_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const Tensor& result = out[0];
  const auto dim = static_cast<std::size_t>(a.i(0));
  int64_t at = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const Tensor& t = in[i];
    NABLA_CHECK(t.dtype() == result.dtype(), "cat: tensor ", i, " has dtype ", t.dtype(), " but the output has ",
                result.dtype(), " (the public cat promotes the inputs to one dtype)");
    if (t.numel() > 0)
      copy_items(make_view(result, t.sizes(), result.strides(), result.storage_offset() + at * result.strides()[dim]),
                 t, "cat");
    at += t.sizes()[dim];
  }
}

// The [B, H, W] geometry of a reflect/replicate pad (kernels/cpu/pad.cpp's).
struct PadGeometry {
  int64_t b = 1, h = 1, w = 1, oh = 1, ow = 1, top = 0, bottom = 0, left = 0, right = 0;
};
PadGeometry pad_geometry(const Shape& in, const Shape& lo, const Shape& hi) {
  PadGeometry g;
  const auto k = lo.size(), nd = in.size();
  for (std::size_t d = 0; d + k < nd; ++d) g.b *= in[d];
  g.w = in[nd - 1];
  g.left = lo[k - 1];
  g.right = hi[k - 1];
  g.ow = g.w + g.left + g.right;
  if (k == 2) {
    g.h = in[nd - 2];
    g.top = lo[0];
    g.bottom = hi[0];
    g.oh = g.h + g.top + g.bottom;
  }
  return g;
}

// attrs: pads, mode, value. Constant: the value everywhere, then the box
// where input and output overlap copied in (negative pads crop).
void pad_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const char* op = "pad";
  const Tensor& x = in[0];
  const Tensor& result = out[0];
  const PadMode mode = parse_mode(a.str(1));
  Shape lo, hi;
  split_pads(a.ints(0), x.dim(), mode == PadMode::Constant, lo, hi);
  const DeviceRef dev = device_ref(result.device(), op);
  if (mode == PadMode::Constant) {
    const std::size_t item = itemsize(result.dtype()), bytes = static_cast<std::size_t>(result.numel()) * item;
    if (bytes == 0) return;
    unsigned char pattern[8] = {};
    visit_dtype(result.dtype(), [&]<class T>() {
      const T v = Scalar(a.f(2)).to<T>();
      std::memcpy(pattern, &v, sizeof v);
    });
    fill_items(result, pattern, item, op);
    Shape box;
    int64_t out_off = result.storage_offset(), in_off = x.storage_offset();
    for (std::size_t d = 0; d < lo.size(); ++d) {
      const int64_t in_start = std::max<int64_t>(-lo[d], 0), out_start = std::max<int64_t>(lo[d], 0);
      const int64_t len = std::min(x.sizes()[d] - in_start, result.sizes()[d] - out_start);
      if (len <= 0) return;
      box.push_back(len);
      in_off += in_start * x.strides()[d];
      out_off += out_start * result.strides()[d];
    }
    copy_items(make_view(result, box, result.strides(), out_off), make_view(x, box, x.strides(), in_off), op);
    return;
  }
  const Tensor xc = contiguous_items(x, op);
  const PadGeometry g = pad_geometry(x.sizes(), lo, hi);
  const int64_t n = result.numel();
  if (n == 0) return;
  Launch k = move_kernel(dev, x.dtype(), "nb_pad_index", op);
  k.arg(result).arg(xc).arg(n).arg(g.h).arg(g.w).arg(g.oh).arg(g.ow).arg(g.top).arg(g.left);
  k.arg(int64_t{mode == PadMode::Replicate}).run(static_cast<std::size_t>(n));
}

// attrs: pads, mode, input_sizes. Each input position sums the gradient of
// the padded positions that read it (nb_pad_backward: no atomics, the CPU's
// order).
void pad_backward_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const char* op = "pad_backward";
  const Tensor& result = out[0];
  const DType t = result.dtype();
  NABLA_CHECK(t == kFloat32 || t == kFloat64, op, ": expected a float32/float64 tensor, got ", t);
  const Tensor grad = contiguous_items(in[0], op);
  Shape lo, hi;
  split_pads(a.ints(0), result.dim(), false, lo, hi);
  const PadGeometry g = pad_geometry(result.sizes(), lo, hi);
  const int64_t n = result.numel();
  if (n == 0) return;
  Launch k = accumulate_kernel(device_ref(result.device(), op), t, "nb_pad_backward", op);
  k.arg(result).arg(grad).arg(n).arg(g.h).arg(g.w).arg(g.oh).arg(g.ow).arg(g.top).arg(g.bottom).arg(g.left);
  k.arg(g.right).arg(int64_t{parse_mode(a.str(1)) == PadMode::Replicate}).run(static_cast<std::size_t>(n));
}

}  // namespace

void register_rearrange_kernels(DeviceType type) {
  register_kernel(flip_op, type, flip_kernel);
  register_kernel(tril_op, type, triangle_kernel<true>);
  register_kernel(triu_op, type, triangle_kernel<false>);
  register_kernel(cat_op, type, cat_kernel);
  register_kernel(pad_op, type, pad_kernel);
  register_kernel(pad_backward_op, type, pad_backward_kernel);
}

}  // namespace accel
}  // namespace nabla

// Padding on CPU. Constant mode fills the output and copies the overlapping
// box through strided views (no per-element index math). Reflect/replicate
// view tensors as [B, H, W] (H = 1 for 1-D padding) and map every output
// position to its source; the backward pass scatters along the same map,
// split over B so no two threads touch one element.
#include "nabla/kernels/cpu/pad.h"

#include <algorithm>

#include "nabla/core/parallel.h"
#include "nabla/kernels/cpu/nn_util.h"

namespace nabla::cpu {
namespace {

int64_t source_index(int64_t o, int64_t lo, int64_t n, PadMode mode) {
  int64_t i = o - lo;
  if (mode == PadMode::Replicate) return std::clamp<int64_t>(i, 0, n - 1);
  if (i < 0) i = -i;                    // reflect about the first element
  if (i >= n) i = 2 * (n - 1) - i;      // ... and about the last
  return i;
}

// The [B, H, W] geometry of a reflect/replicate pad.
struct Geometry {
  int64_t b = 1, h = 1, w = 1, oh = 1, ow = 1, top = 0, left = 0;
};
Geometry geometry(const Shape& in, const Shape& lo, const Shape& hi) {
  Geometry g;
  int64_t k = static_cast<int64_t>(lo.size()), nd = static_cast<int64_t>(in.size());
  for (int64_t d = 0; d < nd - k; ++d) g.b *= in[d];
  g.w = in[nd - 1];
  g.left = lo[k - 1];
  g.ow = g.w + lo[k - 1] + hi[k - 1];
  if (k == 2) {
    g.h = in[nd - 2];
    g.top = lo[0];
    g.oh = g.h + lo[0] + hi[0];
  }
  return g;
}

}  // namespace

void pad_constant(const Tensor& x, const Shape& lo, const Shape& hi, const Scalar& value, const Tensor& out) {
  visit_dtype(out.dtype(), [&]<class T>() {
    T v = value.to<T>();
    T* p = static_cast<T*>(out.raw_data());
    std::fill(p, p + out.numel(), v);
  });
  // The box where input and output overlap, as a view of each.
  Shape box;
  int64_t out_off = 0, in_off = x.storage_offset();
  for (std::size_t d = 0; d < lo.size(); ++d) {
    int64_t in_start = std::max<int64_t>(-lo[d], 0), out_start = std::max<int64_t>(lo[d], 0);
    int64_t len = std::min(x.sizes()[d] - in_start, out.sizes()[d] - out_start);
    if (len <= 0) return;
    box.push_back(len);
    in_off += in_start * x.strides()[d];
    out_off += out_start * out.strides()[d];
  }
  const Tensor src[1] = {make_view(x, box, x.strides(), in_off)};
  Tensor dst[1] = {make_view(out, box, out.strides(), out_off)};
  cast_kernel(src, {}, dst);
}

void pad_index(const Tensor& x_in, const Shape& lo, const Shape& hi, PadMode mode, const Tensor& out) {
  Tensor x = contiguous_input(x_in);
  Geometry g = geometry(x.sizes(), lo, hi);
  visit_dtype(x.dtype(), [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    T* po = static_cast<T*>(out.raw_data());
    int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(g.oh * g.ow, 1));
    parallel_for(0, g.b, grain, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b)
        for (int64_t oh = 0; oh < g.oh; ++oh) {
          const T* row = px + (b * g.h + source_index(oh, g.top, g.h, mode)) * g.w;
          T* dst = po + (b * g.oh + oh) * g.ow;
          for (int64_t ow = 0; ow < g.ow; ++ow) dst[ow] = row[source_index(ow, g.left, g.w, mode)];
        }
    });
  });
}

void pad_index_backward(const Tensor& grad_in, const Shape& lo, const Shape& hi, PadMode mode, const Tensor& out) {
  Tensor grad = contiguous_input(grad_in);
  Geometry g = geometry(out.sizes(), lo, hi);
  visit_float(out.dtype(), "pad_backward", [&]<class T>() {
    const T* pg = static_cast<const T*>(grad.raw_data());
    T* po = static_cast<T*>(out.raw_data());
    std::fill(po, po + out.numel(), T(0));
    int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(g.oh * g.ow, 1));
    parallel_for(0, g.b, grain, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b)
        for (int64_t oh = 0; oh < g.oh; ++oh) {
          T* row = po + (b * g.h + source_index(oh, g.top, g.h, mode)) * g.w;
          const T* src = pg + (b * g.oh + oh) * g.ow;
          for (int64_t ow = 0; ow < g.ow; ++ow) row[source_index(ow, g.left, g.w, mode)] += src[ow];
        }
    });
  });
}

}  // namespace nabla::cpu

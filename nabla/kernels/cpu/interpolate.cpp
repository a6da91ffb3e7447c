// 2-D resampling on CPU. Both modes are separable: each output row/column
// reads two input rows/columns with weights (nearest: one, weight 1), so the
// index math is done once per axis ("taps") and each [H, W] plane is then a
// plain weighted gather (forward) or scatter-add (backward). Planes are split
// across threads, so the scatter never races. Index rules follow PyTorch's
// upsample kernels (nearest: floor(dst * scale) in float; bilinear:
// area_pixel_compute_source_index) so results match it exactly.
#include "nabla/kernels/cpu/interpolate.h"

#include <cmath>
#include <vector>

#include "nabla/core/parallel.h"
#include "nabla/kernels/cpu/nn_util.h"

namespace nabla::cpu {
namespace {

template <class T>
struct Taps {
  std::vector<int64_t> i0, i1;
  std::vector<T> w0, w1;
};

// in/out, or 1/user_scale when the user gave a scale factor (PyTorch's
// compute_scales_value).
template <class S>
S step(int64_t in, int64_t out, double user_scale) {
  return user_scale > 0 ? static_cast<S>(1.0 / user_scale) : static_cast<S>(in) / static_cast<S>(out);
}

template <class T>
Taps<T> make_taps(int64_t in, int64_t out, const ResampleSpec& spec, double user_scale) {
  Taps<T> t;
  t.i0.resize(out);
  t.i1.resize(out);
  t.w0.resize(out);
  t.w1.resize(out);
  for (int64_t o = 0; o < out; ++o) {
    if (!spec.bilinear) {
      int64_t src = o;
      if (out == 2 * in) src = o >> 1;
      else if (out != in) src = std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * step<float>(in, out, user_scale))), in - 1);
      t.i0[o] = t.i1[o] = src;
      t.w0[o] = T(1);
      t.w1[o] = T(0);
      continue;
    }
    T real;
    if (spec.align_corners) {
      T scale = out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
      real = scale * static_cast<T>(o);
    } else {
      real = step<T>(in, out, user_scale) * (static_cast<T>(o) + T(0.5)) - T(0.5);
      if (real < 0) real = 0;
    }
    int64_t i = static_cast<int64_t>(real);
    T lambda = real - static_cast<T>(i);
    t.i0[o] = i;
    t.i1[o] = i + (i < in - 1 ? 1 : 0);
    t.w0[o] = T(1) - lambda;
    t.w1[o] = lambda;
  }
  return t;
}

// Runs fn(plane_in, plane_out, taps_h, taps_w) for every [H, W] plane.
template <class T, class Fn>
void for_each_plane(const Tensor& small, const Tensor& big, const ResampleSpec& spec, Fn&& fn) {
  int64_t planes = small.sizes()[0] * small.sizes()[1];
  int64_t h = small.sizes()[2], w = small.sizes()[3], oh = big.sizes()[2], ow = big.sizes()[3];
  Taps<T> th = make_taps<T>(h, oh, spec, spec.scale_h), tw = make_taps<T>(w, ow, spec, spec.scale_w);
  int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(oh * ow, 1));
  parallel_for(0, planes, grain, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) fn(p * h * w, p * oh * ow, th, tw);
  });
}

}  // namespace

void resample2d(const Tensor& x_in, const ResampleSpec& spec, const Tensor& out) {
  Tensor x = contiguous_input(x_in);
  int64_t w = x.sizes()[3], oh = out.sizes()[2], ow = out.sizes()[3];
  visit_float(x.dtype(), "interpolate", [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    T* po = static_cast<T*>(out.raw_data());
    for_each_plane<T>(x, out, spec, [&](int64_t in_off, int64_t out_off, const Taps<T>& th, const Taps<T>& tw) {
      const T* src = px + in_off;
      T* dst = po + out_off;
      for (int64_t r = 0; r < oh; ++r) {
        const T* row0 = src + th.i0[r] * w;
        const T* row1 = src + th.i1[r] * w;
        T* d = dst + r * ow;
        if (!spec.bilinear) {
          for (int64_t c = 0; c < ow; ++c) d[c] = row0[tw.i0[c]];
          continue;
        }
        T a0 = th.w0[r], a1 = th.w1[r];
        for (int64_t c = 0; c < ow; ++c) {
          int64_t c0 = tw.i0[c], c1 = tw.i1[c];
          d[c] = a0 * (tw.w0[c] * row0[c0] + tw.w1[c] * row0[c1]) + a1 * (tw.w0[c] * row1[c0] + tw.w1[c] * row1[c1]);
        }
      }
    });
  });
}

void resample2d_backward(const Tensor& grad_in, const ResampleSpec& spec, const Tensor& out) {
  Tensor grad = contiguous_input(grad_in);
  int64_t w = out.sizes()[3], oh = grad.sizes()[2], ow = grad.sizes()[3];
  visit_float(out.dtype(), "interpolate_backward", [&]<class T>() {
    const T* pg = static_cast<const T*>(grad.raw_data());
    T* po = static_cast<T*>(out.raw_data());
    std::fill(po, po + out.numel(), T(0));
    for_each_plane<T>(out, grad, spec, [&](int64_t in_off, int64_t out_off, const Taps<T>& th, const Taps<T>& tw) {
      T* dst = po + in_off;
      const T* src = pg + out_off;
      for (int64_t r = 0; r < oh; ++r) {
        T* row0 = dst + th.i0[r] * w;
        T* row1 = dst + th.i1[r] * w;
        const T* g = src + r * ow;
        T a0 = th.w0[r], a1 = th.w1[r];
        for (int64_t c = 0; c < ow; ++c) {
          int64_t c0 = tw.i0[c], c1 = tw.i1[c];
          row0[c0] += a0 * tw.w0[c] * g[c];
          row0[c1] += a0 * tw.w1[c] * g[c];
          row1[c0] += a1 * tw.w0[c] * g[c];
          row1[c1] += a1 * tw.w1[c] * g[c];
        }
      }
    });
  });
}

}  // namespace nabla::cpu

// Channels-last max pooling (see pool_nhwc.h).
#include "nabla/kernels/cpu/pool_nhwc.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "nabla/core/parallel.h"

namespace nabla::cpu {
namespace {

template <class Fn>
void float_dispatch(DType t, Fn&& fn) {
  if (t == kFloat32) fn.template operator()<float>();
  else if (t == kFloat64) fn.template operator()<double>();
  else fail("max_pool2d: unsupported dtype ", t, " (expected float32 or float64)");
}

// One tap of a window for the C channels of a pixel: the first tap starts
// the maximum; a later one wins if larger or a NaN (pool.cpp's rule,
// PyTorch's: the last NaN of a window wins). Branch-free over the
// contiguous channels, so it vectorizes.
template <class T>
void max_tap(const T* __restrict src, int64_t at, int64_t C, bool first, T* __restrict v, int64_t* __restrict ix) {
  if (first) {
    for (int64_t c = 0; c < C; ++c) {
      v[c] = src[c];
      ix[c] = at;
    }
    return;
  }
  for (int64_t c = 0; c < C; ++c) {
    const T s = src[c];
    const bool take = s > v[c] || s != s;
    v[c] = take ? s : v[c];
    ix[c] = take ? at : ix[c];
  }
}

}  // namespace

void max_pool2d_forward_nhwc(const Tensor& x, const Tensor& values, const Tensor& indices, const Pool2dGeometry& g) {
  const int64_t N = x.sizes()[0], C = x.sizes()[1], W = g.in_w;
  float_dispatch(x.dtype(), [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    T* pv = static_cast<T*>(values.raw_data());
    int64_t* pi = static_cast<int64_t*>(indices.raw_data());
    const int64_t rows = N * g.out_h;  // (n, oh) pairs, each a row of out_w pixels
    parallel_for(0, rows, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(g.out_w * C * g.kernel_h * g.kernel_w, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t r = b; r < e; ++r) {
                     const int64_t n = r / g.out_h, oh = r % g.out_h;
                     const T* xn = px + n * g.in_h * W * C;
                     for (int64_t ow = 0; ow < g.out_w; ++ow) {
                       T* v = pv + ((n * g.out_h + oh) * g.out_w + ow) * C;
                       int64_t* ix = pi + ((n * g.out_h + oh) * g.out_w + ow) * C;
                       bool first = true;
                       for (int64_t kh = 0; kh < g.kernel_h; ++kh) {
                         const int64_t ih = oh * g.stride_h - g.pad_h + kh * g.dilation_h;
                         if (ih < 0 || ih >= g.in_h) continue;
                         for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
                           const int64_t iw = ow * g.stride_w - g.pad_w + kw * g.dilation_w;
                           if (iw < 0 || iw >= W) continue;
                           max_tap(xn + (ih * W + iw) * C, ih * W + iw, C, first, v, ix);
                           first = false;
                         }
                       }
                       if (first) {  // a window with no element
                         std::fill(v, v + C, -std::numeric_limits<T>::infinity());
                         std::fill(ix, ix + C, int64_t{-1});
                       }
                     }
                   }
                 });
  });
}

void max_pool2d_backward_nhwc(const Tensor& gy, const Tensor& indices, const Tensor& gx, const Pool2dGeometry& g) {
  const int64_t N = gx.sizes()[0], C = gx.sizes()[1], HW = g.in_h * g.in_w, P = g.out_h * g.out_w;
  float_dispatch(gx.dtype(), [&]<class T>() {
    const T* pg = static_cast<const T*>(gy.raw_data());
    const int64_t* pi = static_cast<const int64_t*>(indices.raw_data());
    T* px = static_cast<T*>(gx.raw_data());
    // A sample per task: its gradient planes are its own, so no two tasks add
    // into the same element.
    parallel_for(0, N, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>((HW + P) * C, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t n = b; n < e; ++n) {
                     T* xn = px + n * HW * C;
                     std::fill(xn, xn + HW * C, T(0));
                     for (int64_t p = 0; p < P; ++p) {
                       const T* src = pg + (n * P + p) * C;
                       const int64_t* ix = pi + (n * P + p) * C;
                       for (int64_t c = 0; c < C; ++c)
                         if (ix[c] >= 0) xn[ix[c] * C + c] += src[c];
                     }
                   }
                 });
  });
}

}  // namespace nabla::cpu

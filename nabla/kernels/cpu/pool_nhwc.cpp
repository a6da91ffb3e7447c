// Channels-last max pooling (see pool_nhwc.h).
#include "nabla/kernels/cpu/pool_nhwc.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "nabla/core/parallel.h"

namespace nabla::cpu {
namespace {

template <class Fn>
void float_dispatch(DType t, Fn&& fn) {
  if (t == kFloat32) fn.template operator()<float>();
  else if (t == kFloat64) fn.template operator()<double>();
  else if (t == kBFloat16) fn.template operator()<BFloat16>();
  else fail("max_pool2d: unsupported dtype ", t, " (expected float32, float64 or bfloat16)");
}

// The type a storage type compares and adds in: bfloat16 widens to float32
// and rounds back (T(m)), exactly, as the float32 path does (a max or 0 + g
// of bfloat16s is a bfloat16; a NaN gets its quiet bit either way).
template <class T>
using Math = std::conditional_t<std::is_same_v<T, BFloat16>, float, T>;

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
    const Math<T> s = src[c], best = v[c];
    const bool take = s > best || s != s;
    v[c] = T(take ? s : best);
    ix[c] = take ? at : ix[c];
  }
}

// A whole 2x2 window inside the plane, the four taps (positions at[0..3], in
// tap order, their channel vectors s[0..3]) in one pass over the channels:
// max_tap's rule, tap after tap, without writing the running maximum out.
template <class T>
void max_2x2(const T* const* s, const int64_t* at, int64_t C, T* __restrict v, int64_t* __restrict ix) {
  const T* __restrict s0 = s[0];
  const T* __restrict s1 = s[1];
  const T* __restrict s2 = s[2];
  const T* __restrict s3 = s[3];
  for (int64_t c = 0; c < C; ++c) {
    Math<T> best = s0[c];
    int64_t arg = at[0];
    const Math<T> t1 = s1[c], t2 = s2[c], t3 = s3[c];
    bool take = t1 > best || t1 != t1;
    best = take ? t1 : best;
    arg = take ? at[1] : arg;
    take = t2 > best || t2 != t2;
    best = take ? t2 : best;
    arg = take ? at[2] : arg;
    take = t3 > best || t3 != t3;
    best = take ? t3 : best;
    arg = take ? at[3] : arg;
    v[c] = T(best);
    ix[c] = arg;
  }
}

// The element type the unpool loop moves: bfloat16 as its bits (through
// the BFloat16 struct, GCC did not vectorize the loop: 2.9 ms against
// float32's 0.5 on [64,32,28,28]).
template <class T>
using Raw = std::conditional_t<std::is_same_v<T, BFloat16>, uint16_t, T>;

// 0 + g, what the scatter into zeros computes (-0 lands as +0); on
// bfloat16 bits, the float32 path's result: g, but +0 for -0 and a NaN
// with its quiet bit.
template <class R>
R zero_plus(R g) {
  if constexpr (std::is_same_v<R, uint16_t>) {
    const uint16_t b = g == 0x8000 ? uint16_t{0} : g;
    return (b & 0x7fff) > 0x7f80 ? static_cast<uint16_t>(b | 0x40) : b;
  } else {
    return R(0) + g;
  }
}

// max_pool2d_backward of one sample whose indices all lie in their window's
// 2x2 block of pixels (rows 2oh, 2oh + 1, columns 2ow, 2ow + 1): what a 2x2 /
// stride-2 pool without padding gives. The blocks do not overlap, so each
// element is written once, as 0 + g (the scatter's sum into zeros, bit for
// bit) or 0, with no zero fill and no scatter; pixels outside every block get
// 0. Returns false, having written part of the sample, as soon as an index is
// outside its block: the caller then fills and scatters the sample.
template <class R>
bool unpool_2x2_sample(const R* __restrict gy, const int64_t* __restrict idx, R* __restrict gx, const Pool2dGeometry& g,
                       int64_t C) {
  const int64_t W = g.in_w;
  if (2 * g.out_h > g.in_h || 2 * g.out_w > W) return false;
  for (int64_t oh = 0; oh < g.out_h; ++oh) {
    for (int64_t ow = 0; ow < g.out_w; ++ow) {
      const int64_t at0 = 2 * oh * W + 2 * ow, at1 = at0 + 1, at2 = at0 + W, at3 = at0 + W + 1;
      const R* __restrict src = gy + (oh * g.out_w + ow) * C;
      const int64_t* __restrict ix = idx + (oh * g.out_w + ow) * C;
      R* __restrict d0 = gx + at0 * C;
      R* __restrict d1 = gx + at1 * C;
      R* __restrict d2 = gx + at2 * C;
      R* __restrict d3 = gx + at3 * C;
      int64_t outside = 0;
      for (int64_t c = 0; c < C; ++c) {
        const int64_t i = ix[c];
        const R v = zero_plus(src[c]);
        d0[c] = i == at0 ? v : R(0);
        d1[c] = i == at1 ? v : R(0);
        d2[c] = i == at2 ? v : R(0);
        d3[c] = i == at3 ? v : R(0);
        outside += i != at0 && i != at1 && i != at2 && i != at3;
      }
      if (outside) return false;
    }
    // A last column no window reads.
    for (int64_t w = 2 * g.out_w; w < W; ++w) {
      std::fill(gx + (2 * oh * W + w) * C, gx + (2 * oh * W + w + 1) * C, R(0));
      std::fill(gx + ((2 * oh + 1) * W + w) * C, gx + ((2 * oh + 1) * W + w + 1) * C, R(0));
    }
  }
  std::fill(gx + 2 * g.out_h * W * C, gx + g.in_h * W * C, R(0));  // a last row no window reads
  return true;
}

// sum = 0, then sum[ix[p, c], c] += gy[p, c]: the scatter of one sample.
template <class T, class S>
void scatter_into(const T* gy, const int64_t* idx, S* sum, int64_t HW, int64_t P, int64_t C) {
  std::fill(sum, sum + HW * C, S(0));
  for (int64_t p = 0; p < P; ++p)
    for (int64_t c = 0; c < C; ++c)
      if (idx[p * C + c] >= 0) sum[idx[p * C + c] * C + c] += S(gy[p * C + c]);
}
// In place; a bfloat16 sample sums in float32 and rounds once (the float32
// path's sums).
template <class T>
void scatter_sample(const T* gy, const int64_t* idx, T* gx, int64_t HW, int64_t P, int64_t C) {
  if constexpr (std::is_same_v<T, Math<T>>) {
    scatter_into(gy, idx, gx, HW, P, C);
  } else {
    std::vector<Math<T>> sum(static_cast<std::size_t>(HW * C));
    scatter_into(gy, idx, sum.data(), HW, P, C);
    for (int64_t i = 0; i < HW * C; ++i) gx[i] = T(sum[static_cast<std::size_t>(i)]);
  }
}

}  // namespace

void max_pool2d_forward_nhwc(const Tensor& x, const Tensor& values, const Tensor& indices, const Pool2dGeometry& g) {
  const int64_t N = x.sizes()[0], C = x.sizes()[1], W = g.in_w;
  const bool pool2x2 = g.kernel_h == 2 && g.kernel_w == 2 && g.dilation_h == 1 && g.dilation_w == 1;
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
                       const int64_t ih0 = oh * g.stride_h - g.pad_h, iw0 = ow * g.stride_w - g.pad_w;
                       if (pool2x2 && ih0 >= 0 && ih0 + 1 < g.in_h && iw0 >= 0 && iw0 + 1 < W) {
                         const int64_t at[4] = {ih0 * W + iw0, ih0 * W + iw0 + 1, (ih0 + 1) * W + iw0,
                                                (ih0 + 1) * W + iw0 + 1};
                         const T* taps[4] = {xn + at[0] * C, xn + at[1] * C, xn + at[2] * C, xn + at[3] * C};
                         max_2x2(taps, at, C, v, ix);
                         continue;
                       }
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
                         std::fill(v, v + C, T(-std::numeric_limits<Math<T>>::infinity()));
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
                     using R = Raw<T>;
                     if (unpool_2x2_sample(reinterpret_cast<const R*>(pg + n * P * C), pi + n * P * C,
                                           reinterpret_cast<R*>(xn), g, C))
                       continue;
                     scatter_sample(pg + n * P * C, pi + n * P * C, xn, HW, P, C);
                   }
                 });
  });
}

}  // namespace nabla::cpu

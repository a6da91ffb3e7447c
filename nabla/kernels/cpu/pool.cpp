// Pooling kernels (see pool.h). Inputs are made contiguous first (a copy only
// for strided inputs) so the inner loops index planes directly.
#include "nabla/kernels/cpu/pool.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>
#include <type_traits>

#include "nabla/core/parallel.h"
#include "nabla/kernels/cpu/elementwise.h"
#include "nabla/kernels/cpu/pool_avx512.h"

namespace nabla::cpu {
namespace {

// Runs fn(plane) for every plane, in parallel when the work is large enough.
template <class Fn>
void for_planes(const Pool2dGeometry& g, int64_t work_per_plane, Fn&& fn) {
  int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(work_per_plane, 1));
  parallel_for(0, g.planes, grain, [&](int64_t b, int64_t e) {
    for (int64_t q = b; q < e; ++q) fn(q);
  });
}

template <class Fn>
void float_dispatch(DType t, const char* what, Fn&& fn) {
  if (t == kFloat32) fn.template operator()<float>();
  else if (t == kFloat64) fn.template operator()<double>();
  else fail(what, ": unsupported dtype ", t, " (expected float32 or float64)");
}

// The avg-pool window of output (oh, ow): clipped bounds and divisor.
struct AvgWindow {
  int64_t h0, h1, w0, w1, divisor;
};
AvgWindow avg_window(const Pool2dGeometry& g, AvgPoolOptions o, int64_t oh, int64_t ow) {
  int64_t h0 = oh * g.stride_h - g.pad_h, w0 = ow * g.stride_w - g.pad_w;
  int64_t h1 = std::min(h0 + g.kernel_h, g.in_h + g.pad_h), w1 = std::min(w0 + g.kernel_w, g.in_w + g.pad_w);
  int64_t padded_size = (h1 - h0) * (w1 - w0);
  h0 = std::max<int64_t>(h0, 0), w0 = std::max<int64_t>(w0, 0);
  h1 = std::min(h1, g.in_h), w1 = std::min(w1, g.in_w);
  int64_t divisor = o.divisor_override ? o.divisor_override
                    : o.count_include_pad ? padded_size
                                          : (h1 - h0) * (w1 - w0);
  return {h0, h1, w0, w1, std::max<int64_t>(divisor, 1)};
}

// The window of output (oh, ow) lies inside the plane for rows [row_lo,
// row_hi) and columns [col_lo, col_hi): there the max needs no bounds checks
// (and, for the usual 2x2 / stride 2 pool, that is every output).
int64_t first_inside(int64_t stride, int64_t pad) { return (pad + stride - 1) / stride; }
int64_t end_inside(int64_t out, int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dilation) {
  int64_t last = in + pad - (k - 1) * dilation - 1;  // oh * stride <= last
  return last < 0 ? 0 : std::min(out, last / stride + 1);
}

int64_t adaptive_start(int64_t i, int64_t in, int64_t out) { return (i * in) / out; }
int64_t adaptive_end(int64_t i, int64_t in, int64_t out) { return ((i + 1) * in + out - 1) / out; }

// One tap of the interior max-pool windows of an output row: for the n
// outputs j, the candidate plane[i0 + j * stride] (stride: SW, or sw when SW
// is 0). The first tap starts the maximum; a later one wins if larger or a
// NaN (edge()'s rule: the last NaN wins, as in PyTorch). The outputs of a row are independent, so this
// loop vectorizes (with a constant stride); a window-at-a-time loop is one
// long dependency chain through the running maximum, ~5x slower.
template <int64_t SW, class T>
void max_taps_row(const T* __restrict plane, int64_t i0, int64_t n, int64_t sw, bool first, T* __restrict vb,
                  int64_t* __restrict ib) {
  const int64_t stride = SW ? SW : sw;
  const T* __restrict src = plane + i0;
  if (first) {
    for (int64_t j = 0; j < n; ++j) {
      vb[j] = src[j * stride];
      ib[j] = i0 + j * stride;
    }
    return;
  }
  for (int64_t j = 0; j < n; ++j) {
    T v = src[j * stride], best = vb[j];
    bool take = v > best || v != v;  // the last NaN wins, as in PyTorch
    vb[j] = take ? v : best;
    ib[j] = take ? i0 + j * stride : ib[j];
  }
}

// The interior 2x2 / stride-2 windows of an output row, all four taps in one
// pass (same rule and tap order as max_taps_row): window j covers
// plane[i0 + 2j + {0, 1, W, W + 1}].
template <class T>
void max2x2_row(const T* __restrict plane, int64_t i0, int64_t W, int64_t n, T* __restrict vb, int64_t* __restrict ib) {
  const T* __restrict r0 = plane + i0;
  const T* __restrict r1 = r0 + W;
  auto tap = [](T v, int64_t i, T& best, int64_t& arg) {
    bool take = v > best || v != v;  // the last NaN wins, as in PyTorch
    best = take ? v : best;
    arg = take ? i : arg;
  };
  for (int64_t j = 0; j < n; ++j) {
    int64_t i = i0 + 2 * j;
    T best = r0[2 * j];
    int64_t arg = i;
    tap(r0[2 * j + 1], i + 1, best, arg);
    tap(r1[2 * j], i + W, best, arg);
    tap(r1[2 * j + 1], i + W + 1, best, arg);
    vb[j] = best;
    ib[j] = arg;
  }
}

// max2x2_row's windows at plane[at[j] + {0, 1, W, W + 1}] for j < n.
template <class T>
void max2x2_table(const T* __restrict plane, const int64_t* __restrict at, int64_t W, int64_t n, T* __restrict vb,
                  int64_t* __restrict ib) {
  auto tap = [](T v, int64_t i, T& best, int64_t& arg) {
    bool take = v > best || v != v;  // the last NaN wins, as in PyTorch
    best = take ? v : best;
    arg = take ? i : arg;
  };
  for (int64_t j = 0; j < n; ++j) {
    int64_t i = at[j];
    T best = plane[i];
    int64_t arg = i;
    tap(plane[i + 1], i + 1, best, arg);
    tap(plane[i + W], i + W, best, arg);
    tap(plane[i + W + 1], i + W + 1, best, arg);
    vb[j] = best;
    ib[j] = arg;
  }
}

// max_pool2d_backward of one float32 plane where every window's index lies
// in the window's own 2x2 block (rows 2oh, 2oh + 1, columns 2ow, 2ow + 1):
// what a 2x2 / stride-2 pool without padding gives, whatever the geometry
// was (the backward op knows only the shapes). The blocks do not overlap, so
// each element gets at most one gradient: the blocks are written whole, row
// pair by row pair (unpool2x2_plane_avx512), sixteen windows per step instead
// of a scalar scatter; elements outside every block stay 0. Bit for bit the
// scatter's results.
// Returns false, having written part of the plane, as soon as an index is
// outside its block (an overlapping, padded or empty window), or where
// there is no AVX-512: the caller then fills and scatters the whole plane.
// (A scalar version of this loop ran slower than the scatter: its four
// selects per window became mispredicted branches.)
template <class T>
bool unpool2x2_plane(const T* gy, const int64_t* idx, T* gx, const Pool2dGeometry& g) {
  if constexpr (!std::is_same_v<T, float>) {
    return false;
  } else {
    const int64_t W = g.in_w, OW = g.out_w;
    if (2 * g.out_h > g.in_h || 2 * OW > W || W >= (int64_t{1} << 30) || !pool_avx512_available()) return false;
    // Zeroed first, although the blocks are then written whole: the fill
    // (memset's string stores) takes the plane's cache lines without reading
    // them from memory, where the blocks' partial-line stores alone made the
    // CPU fetch each line first. With the plane in memory (as in a training
    // step; `pool_bench --cold`, 4 interleaved rounds on a shared machine)
    // fill + blocks took 0.33-0.36 ms on [64,32,28,28] against 0.46-0.58
    // without the fill; in cache, 0.30 against 0.24.
    std::fill(gx, gx + g.in_h * W, 0.0f);
    return unpool2x2_plane_avx512(gy, idx, gx, W, g.out_h, OW);
  }
}

// The output rows [row_lo, row_hi) and columns [col_lo, col_hi) whose
// max-pool windows lie inside the plane.
struct Interior {
  int64_t row_lo, row_hi, col_lo, col_hi;
  bool everything(const Pool2dGeometry& g) const {
    return row_lo == 0 && row_hi == g.out_h && col_lo == 0 && col_hi == g.out_w;
  }
};
Interior max_interior(const Pool2dGeometry& g) {
  Interior in;
  in.row_lo = std::min(first_inside(g.stride_h, g.pad_h), g.out_h);
  in.row_hi = std::max(in.row_lo, end_inside(g.out_h, g.in_h, g.kernel_h, g.stride_h, g.pad_h, g.dilation_h));
  in.col_lo = std::min(first_inside(g.stride_w, g.pad_w), g.out_w);
  in.col_hi = std::max(in.col_lo, end_inside(g.out_w, g.in_w, g.kernel_w, g.stride_w, g.pad_w, g.dilation_w));
  return in;
}
bool is_pool2x2(const Pool2dGeometry& g) {
  return g.kernel_h == 2 && g.kernel_w == 2 && g.stride_w == 2 && g.dilation_h == 1 && g.dilation_w == 1;
}

void max_pool2d_forward_bf16(const Tensor& x_in, const Tensor& values, const Tensor& indices,
                             const Pool2dGeometry& g) {
  if (!max_pool2d_forward_takes_bf16(g)) fail("max_pool2d: no bfloat16 kernel for this geometry (internal error)");
  Tensor x = contiguous_input(x_in);
  const int64_t HW = g.in_h * g.in_w, P = g.out_h * g.out_w;
  const uint16_t* px = static_cast<const uint16_t*>(x.raw_data());
  uint16_t* pv = static_cast<uint16_t*>(values.raw_data());
  int64_t* pi = static_cast<int64_t*>(indices.raw_data());
  for_planes(g, P * 4, [&](int64_t q) {
    max2x2_plane_bf16_avx512(px + q * HW, g.in_w, g.stride_h, g.out_h, g.out_w, pv + q * P, pi + q * P);
  });
}

// The 2x2 blocks (unpool2x2_plane_bf16_avx512) where every index lies in its
// own; otherwise, plane by plane, the float32 path's scatter into a float32
// plane, rounded back once.
void max_pool2d_backward_bf16(const Tensor& gy_in, const Tensor& idx_in, const Tensor& gx, const Pool2dGeometry& g) {
  Tensor gy = contiguous_input(gy_in), idx = contiguous_input(idx_in);
  const int64_t HW = g.in_h * g.in_w, P = g.out_h * g.out_w;
  const int64_t* pi = static_cast<const int64_t*>(idx.raw_data());
  const BFloat16* py = static_cast<const BFloat16*>(gy.raw_data());
  BFloat16* pg = static_cast<BFloat16*>(gx.raw_data());
  const bool blocks = 2 * g.out_h <= g.in_h && 2 * g.out_w <= g.in_w && g.in_w < (int64_t{1} << 30) &&
                      pool_bf16_avx512_available();
  for_planes(g, P + HW, [&](int64_t q) {
    BFloat16* plane = pg + q * HW;
    if (blocks) {
      std::fill(plane, plane + HW, BFloat16(0.0f));  // why first: see unpool2x2_plane
      if (unpool2x2_plane_bf16_avx512(reinterpret_cast<const uint16_t*>(py + q * P), pi + q * P,
                                      reinterpret_cast<uint16_t*>(plane), g.in_w, g.out_h, g.out_w))
        return;
    }
    std::vector<float> sum(static_cast<std::size_t>(HW), 0.0f);
    for (int64_t p = 0; p < P; ++p) {
      const int64_t i = pi[q * P + p];
      if (i >= 0 && i < HW) sum[static_cast<std::size_t>(i)] += static_cast<float>(py[q * P + p]);
    }
    for (int64_t i = 0; i < HW; ++i) plane[i] = BFloat16(sum[static_cast<std::size_t>(i)]);
  });
}

}  // namespace

bool max_pool2d_forward_takes_bf16(const Pool2dGeometry& g) {
  return is_pool2x2(g) && max_interior(g).everything(g) && pool_bf16_avx512_available();
}

void max_pool2d_forward(const Tensor& x_in, const Tensor& values, const Tensor& indices, const Pool2dGeometry& g) {
  if (values.dtype() == kBFloat16) return max_pool2d_forward_bf16(x_in, values, indices, g);
  Tensor x = contiguous_input(x_in);
  int64_t HW = g.in_h * g.in_w, P = g.out_h * g.out_w;
  int64_t* pi = static_cast<int64_t*>(indices.raw_data());
  const Interior inside = max_interior(g);
  const int64_t row_lo = inside.row_lo, row_hi = inside.row_hi, col_lo = inside.col_lo, col_hi = inside.col_hi;
  const bool pool2x2 = is_pool2x2(g);
  // Narrow planes whose windows all lie inside (the second pool of a small
  // CNN: 7 outputs a row) are done as one loop over the plane through a table
  // of window offsets: row by row, most of the work fell in the vector loop's
  // scalar remainder.
  // float32 on an AVX-512 CPU: sixteen 2x2 windows per step (pool_avx512.h),
  // fast on narrow rows too, so no table.
  const bool simd2x2 = pool2x2 && values.dtype() == kFloat32 && pool_avx512_available();
  std::vector<int64_t> window_at;
  if (pool2x2 && !simd2x2 && g.out_w < 16 && inside.everything(g)) {
    window_at.resize(P);
    for (int64_t oh = 0; oh < g.out_h; ++oh)
      for (int64_t ow = 0; ow < g.out_w; ++ow)
        window_at[oh * g.out_w + ow] = (oh * g.stride_h - g.pad_h) * g.in_w + ow * 2 - g.pad_w;
  }
  float_dispatch(values.dtype(), "max_pool2d", [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    T* pv = static_cast<T*>(values.raw_data());
    for_planes(g, P * g.kernel_h * g.kernel_w, [&](int64_t q) {
      const T* plane = px + q * HW;
      T* vrow = pv + q * P;
      int64_t* irow = pi + q * P;
      if (!window_at.empty()) {
        max2x2_table(plane, window_at.data(), g.in_w, P, vrow, irow);
        return;
      }
      if constexpr (std::is_same_v<T, float>) {
        if (simd2x2 && inside.everything(g)) {
          max2x2_plane_avx512(plane, g.in_w, g.stride_h, g.out_h, g.out_w, vrow, irow);
          return;
        }
      }
      // Windows that may reach into the padding: bounds-checked.
      auto edge = [&](int64_t oh, int64_t ow) {
        T best = -std::numeric_limits<T>::infinity();
        int64_t arg = -1;
        for (int64_t ki = 0; ki < g.kernel_h; ++ki) {
          int64_t ih = oh * g.stride_h - g.pad_h + ki * g.dilation_h;
          if (ih < 0 || ih >= g.in_h) continue;
          for (int64_t kj = 0; kj < g.kernel_w; ++kj) {
            int64_t iw = ow * g.stride_w - g.pad_w + kj * g.dilation_w;
            if (iw < 0 || iw >= g.in_w) continue;
            T v = plane[ih * g.in_w + iw];
            // NaN wins (propagates) and the last NaN of the window takes the
            // gradient, like PyTorch (val > max || isnan(val)); first maximum on ties.
            if (arg < 0 || v > best || std::isnan(v)) {
              best = v;
              arg = ih * g.in_w + iw;
            }
          }
        }
        vrow[oh * g.out_w + ow] = best;
        irow[oh * g.out_w + ow] = arg;
      };
      for (int64_t oh = 0; oh < g.out_h; ++oh) {
        if (oh < row_lo || oh >= row_hi) {
          for (int64_t ow = 0; ow < g.out_w; ++ow) edge(oh, ow);
          continue;
        }
        for (int64_t ow = 0; ow < col_lo; ++ow) edge(oh, ow);
        int64_t ih0 = oh * g.stride_h - g.pad_h;
        if (pool2x2) {  // the common case: all four taps in one pass
          int64_t i0 = ih0 * g.in_w - g.pad_w + col_lo * 2, o = oh * g.out_w + col_lo;
          if constexpr (std::is_same_v<T, float>) {
            if (simd2x2) max2x2_row_avx512(plane, i0, g.in_w, col_hi - col_lo, vrow + o, irow + o);
            else max2x2_row(plane, i0, g.in_w, col_hi - col_lo, vrow + o, irow + o);
          } else {
            max2x2_row(plane, i0, g.in_w, col_hi - col_lo, vrow + o, irow + o);
          }
          for (int64_t ow = col_hi; ow < g.out_w; ++ow) edge(oh, ow);
          continue;
        }
        // Interior windows, tap by tap across the row (max_taps_row).
        for (int64_t ki = 0; ki < g.kernel_h; ++ki)
          for (int64_t kj = 0; kj < g.kernel_w; ++kj) {
            int64_t i0 = (ih0 + ki * g.dilation_h) * g.in_w + kj * g.dilation_w - g.pad_w + col_lo * g.stride_w;
            int64_t n = col_hi - col_lo, o = oh * g.out_w + col_lo;
            bool first = ki == 0 && kj == 0;
            if (g.stride_w == 2) max_taps_row<2>(plane, i0, n, 2, first, vrow + o, irow + o);
            else if (g.stride_w == 1) max_taps_row<1>(plane, i0, n, 1, first, vrow + o, irow + o);
            else max_taps_row<0>(plane, i0, n, g.stride_w, first, vrow + o, irow + o);
          }
        for (int64_t ow = col_hi; ow < g.out_w; ++ow) edge(oh, ow);
      }
    });
  });
}

void max_pool2d_backward(const Tensor& gy_in, const Tensor& idx_in, const Tensor& gx, const Pool2dGeometry& g) {
  if (gx.dtype() == kBFloat16) return max_pool2d_backward_bf16(gy_in, idx_in, gx, g);
  Tensor gy = contiguous_input(gy_in), idx = contiguous_input(idx_in);
  int64_t HW = g.in_h * g.in_w, P = g.out_h * g.out_w;
  const int64_t* pi = static_cast<const int64_t*>(idx.raw_data());
  float_dispatch(gx.dtype(), "max_pool2d_backward", [&]<class T>() {
    const T* py = static_cast<const T*>(gy.raw_data());
    T* pg = static_cast<T*>(gx.raw_data());
    for_planes(g, P + HW, [&](int64_t q) {
      T* plane = pg + q * HW;
      if (unpool2x2_plane(py + q * P, pi + q * P, plane, g)) return;
      std::fill(plane, plane + HW, T(0));
      for (int64_t p = 0; p < P; ++p) {
        int64_t i = pi[q * P + p];
        if (i >= 0 && i < HW) plane[i] += py[q * P + p];
      }
    });
  });
}

void max_pool2d_gather(const Tensor& src_in, const Tensor& idx_in, const Tensor& out, const Pool2dGeometry& g) {
  Tensor src = contiguous_input(src_in), idx = contiguous_input(idx_in);
  int64_t HW = g.in_h * g.in_w, P = g.out_h * g.out_w;
  const int64_t* pi = static_cast<const int64_t*>(idx.raw_data());
  float_dispatch(out.dtype(), "max_pool2d_gather", [&]<class T>() {
    const T* ps = static_cast<const T*>(src.raw_data());
    T* po = static_cast<T*>(out.raw_data());
    for_planes(g, P, [&](int64_t q) {
      for (int64_t p = 0; p < P; ++p) {
        int64_t i = pi[q * P + p];
        po[q * P + p] = i >= 0 && i < HW ? ps[q * HW + i] : T(0);
      }
    });
  });
}

void avg_pool2d_forward(const Tensor& x_in, const Tensor& out, const Pool2dGeometry& g, AvgPoolOptions o) {
  Tensor x = contiguous_input(x_in);
  int64_t HW = g.in_h * g.in_w, P = g.out_h * g.out_w;
  float_dispatch(out.dtype(), "avg_pool2d", [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    T* po = static_cast<T*>(out.raw_data());
    for_planes(g, P * g.kernel_h * g.kernel_w, [&](int64_t q) {
      const T* plane = px + q * HW;
      for (int64_t oh = 0; oh < g.out_h; ++oh)
        for (int64_t ow = 0; ow < g.out_w; ++ow) {
          AvgWindow w = avg_window(g, o, oh, ow);
          T acc = 0;
          for (int64_t ih = w.h0; ih < w.h1; ++ih)
            for (int64_t iw = w.w0; iw < w.w1; ++iw) acc += plane[ih * g.in_w + iw];
          po[q * P + oh * g.out_w + ow] = acc / static_cast<T>(w.divisor);
        }
    });
  });
}

void avg_pool2d_backward(const Tensor& gy_in, const Tensor& gx, const Pool2dGeometry& g, AvgPoolOptions o) {
  Tensor gy = contiguous_input(gy_in);
  int64_t HW = g.in_h * g.in_w, P = g.out_h * g.out_w;
  float_dispatch(gx.dtype(), "avg_pool2d_backward", [&]<class T>() {
    const T* py = static_cast<const T*>(gy.raw_data());
    T* pg = static_cast<T*>(gx.raw_data());
    for_planes(g, P * g.kernel_h * g.kernel_w, [&](int64_t q) {
      T* plane = pg + q * HW;
      std::fill(plane, plane + HW, T(0));
      for (int64_t oh = 0; oh < g.out_h; ++oh)
        for (int64_t ow = 0; ow < g.out_w; ++ow) {
          AvgWindow w = avg_window(g, o, oh, ow);
          T v = py[q * P + oh * g.out_w + ow] / static_cast<T>(w.divisor);
          for (int64_t ih = w.h0; ih < w.h1; ++ih)
            for (int64_t iw = w.w0; iw < w.w1; ++iw) plane[ih * g.in_w + iw] += v;
        }
    });
  });
}

void adaptive_avg_pool2d_forward(const Tensor& x_in, const Tensor& out, const Pool2dGeometry& g) {
  Tensor x = contiguous_input(x_in);
  int64_t HW = g.in_h * g.in_w, P = g.out_h * g.out_w;
  float_dispatch(out.dtype(), "adaptive_avg_pool2d", [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    T* po = static_cast<T*>(out.raw_data());
    for_planes(g, HW + P, [&](int64_t q) {
      const T* plane = px + q * HW;
      for (int64_t oh = 0; oh < g.out_h; ++oh) {
        int64_t h0 = adaptive_start(oh, g.in_h, g.out_h), h1 = adaptive_end(oh, g.in_h, g.out_h);
        for (int64_t ow = 0; ow < g.out_w; ++ow) {
          int64_t w0 = adaptive_start(ow, g.in_w, g.out_w), w1 = adaptive_end(ow, g.in_w, g.out_w);
          T acc = 0;
          for (int64_t ih = h0; ih < h1; ++ih)
            for (int64_t iw = w0; iw < w1; ++iw) acc += plane[ih * g.in_w + iw];
          po[q * P + oh * g.out_w + ow] = acc / static_cast<T>((h1 - h0) * (w1 - w0));
        }
      }
    });
  });
}

void adaptive_avg_pool2d_backward(const Tensor& gy_in, const Tensor& gx, const Pool2dGeometry& g) {
  Tensor gy = contiguous_input(gy_in);
  int64_t HW = g.in_h * g.in_w, P = g.out_h * g.out_w;
  float_dispatch(gx.dtype(), "adaptive_avg_pool2d_backward", [&]<class T>() {
    const T* py = static_cast<const T*>(gy.raw_data());
    T* pg = static_cast<T*>(gx.raw_data());
    for_planes(g, HW + P, [&](int64_t q) {
      T* plane = pg + q * HW;
      std::fill(plane, plane + HW, T(0));
      for (int64_t oh = 0; oh < g.out_h; ++oh) {
        int64_t h0 = adaptive_start(oh, g.in_h, g.out_h), h1 = adaptive_end(oh, g.in_h, g.out_h);
        for (int64_t ow = 0; ow < g.out_w; ++ow) {
          int64_t w0 = adaptive_start(ow, g.in_w, g.out_w), w1 = adaptive_end(ow, g.in_w, g.out_w);
          T v = py[q * P + oh * g.out_w + ow] / static_cast<T>((h1 - h0) * (w1 - w0));
          for (int64_t ih = h0; ih < h1; ++ih)
            for (int64_t iw = w0; iw < w1; ++iw) plane[ih * g.in_w + iw] += v;
        }
      }
    });
  });
}

}  // namespace nabla::cpu

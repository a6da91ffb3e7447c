#include "nabla/kernels/device/pool.h"

namespace nabla::device_c {

const char* const kPoolKernels = R"DC(
// The window of output (oh, ow) of avg_pool2d: clipped bounds and divisor
// (kernels/cpu/pool.cpp's avg_window).
typedef struct {
  long h0, h1, w0, w1, divisor;
} nb_avg_window;

NB_FN nb_avg_window nb_avg_window_at(long oh, long ow, long H, long W, long KH, long KW, long SH, long SW, long PH,
                                     long PW, long count_include_pad, long divisor_override) {
  nb_avg_window r;
  r.h0 = oh * SH - PH;
  r.w0 = ow * SW - PW;
  r.h1 = r.h0 + KH < H + PH ? r.h0 + KH : H + PH;
  r.w1 = r.w0 + KW < W + PW ? r.w0 + KW : W + PW;
  const long padded = (r.h1 - r.h0) * (r.w1 - r.w0);
  r.h0 = r.h0 > 0 ? r.h0 : 0;
  r.w0 = r.w0 > 0 ? r.w0 : 0;
  r.h1 = r.h1 < H ? r.h1 : H;
  r.w1 = r.w1 < W ? r.w1 : W;
  long d = divisor_override ? divisor_override : count_include_pad ? padded : (r.h1 - r.h0) * (r.w1 - r.w0);
  r.divisor = d > 1 ? d : 1;
  return r;
}

NB_FN long nb_adaptive_start(long i, long in, long out) { return (i * in) / out; }
NB_FN long nb_adaptive_end(long i, long in, long out) { return ((i + 1) * in + out - 1) / out; }

// values/indices [planes, OH, OW]: the window's maximum and its index in the
// plane (ih * W + iw). A later tap wins when larger or NaN (the last NaN
// wins, as in PyTorch); the first maximum wins ties; padding is -inf. One
// work item per output row: per-output coordinates would cost 64-bit
// divisions, which CPUs (PoCL) do not vectorize.
NB_KERNEL nb_max_pool2d(NB_GLOBAL T* values, long values_off, NB_GLOBAL long* indices, long indices_off,
                        NB_GLOBAL const T* x, long x_off, long planes, long H, long W, long OH, long OW, long KH,
                        long KW, long SH, long SW, long PH, long PW, long DH, long DW) {
  const long row = NB_INDEX;
  if (row >= planes * OH) return;
  const long q = row / OH, oh = row - q * OH;
  NB_GLOBAL const T* plane = x + x_off + q * H * W;
  for (long ow = 0; ow < OW; ++ow) {
    T best = (T)(-NB_INF);
    long arg = -1;
    for (long ki = 0; ki < KH; ++ki) {
      const long ih = oh * SH - PH + ki * DH;
      if (ih < 0 || ih >= H) continue;
      for (long kj = 0; kj < KW; ++kj) {
        const long iw = ow * SW - PW + kj * DW;
        if (iw < 0 || iw >= W) continue;
        const T v = plane[ih * W + iw];
        if (arg < 0 || v > best || NB_ISNAN(v)) {
          best = v;
          arg = ih * W + iw;
        }
      }
    }
    values[values_off + row * OW + ow] = best;
    indices[indices_off + row * OW + ow] = arg;
  }
}

// gx plane q = zeros, plus gy at each output's index (out-of-plane indices
// are skipped, as on the CPU).
NB_KERNEL nb_max_pool2d_backward(NB_GLOBAL T* gx, long gx_off, NB_GLOBAL const T* gy, long gy_off,
                                 NB_GLOBAL const long* idx, long idx_off, long planes, long HW, long P) {
  const long q = NB_INDEX;
  if (q >= planes) return;
  NB_GLOBAL T* plane = gx + gx_off + q * HW;
  for (long j = 0; j < HW; ++j) plane[j] = (T)0;
  for (long p = 0; p < P; ++p) {
    const long k = idx[idx_off + q * P + p];
    if (k >= 0 && k < HW) plane[k] += gy[gy_off + q * P + p];
  }
}

// out [planes, P] = src [planes, HW] at the indices (0 outside the plane).
NB_KERNEL nb_max_pool2d_gather(NB_GLOBAL T* out, long out_off, NB_GLOBAL const T* src, long src_off,
                               NB_GLOBAL const long* idx, long idx_off, long planes, long HW, long P) {
  const long i = NB_INDEX;
  if (i >= planes * P) return;
  const long q = i / P, k = idx[idx_off + i];
  out[out_off + i] = k >= 0 && k < HW ? src[src_off + q * HW + k] : (T)0;
}

// One work item per output row (as nb_max_pool2d).
NB_KERNEL nb_avg_pool2d(NB_GLOBAL T* out, long out_off, NB_GLOBAL const T* x, long x_off, long planes, long H,
                        long W, long OH, long OW, long KH, long KW, long SH, long SW, long PH, long PW,
                        long count_include_pad, long divisor_override) {
  const long row = NB_INDEX;
  if (row >= planes * OH) return;
  const long q = row / OH, oh = row - q * OH;
  NB_GLOBAL const T* plane = x + x_off + q * H * W;
  for (long ow = 0; ow < OW; ++ow) {
    const nb_avg_window w =
        nb_avg_window_at(oh, ow, H, W, KH, KW, SH, SW, PH, PW, count_include_pad, divisor_override);
    T acc = (T)0;
    for (long ih = w.h0; ih < w.h1; ++ih)
      for (long iw = w.w0; iw < w.w1; ++iw) acc += plane[ih * W + iw];
    out[out_off + row * OW + ow] = acc / (T)w.divisor;
  }
}

NB_KERNEL nb_avg_pool2d_backward(NB_GLOBAL T* gx, long gx_off, NB_GLOBAL const T* gy, long gy_off, long planes,
                                 long H, long W, long OH, long OW, long KH, long KW, long SH, long SW, long PH,
                                 long PW, long count_include_pad, long divisor_override) {
  const long q = NB_INDEX;
  if (q >= planes) return;
  NB_GLOBAL T* plane = gx + gx_off + q * H * W;
  for (long j = 0; j < H * W; ++j) plane[j] = (T)0;
  for (long oh = 0; oh < OH; ++oh)
    for (long ow = 0; ow < OW; ++ow) {
      const nb_avg_window w =
          nb_avg_window_at(oh, ow, H, W, KH, KW, SH, SW, PH, PW, count_include_pad, divisor_override);
      const T v = gy[gy_off + (q * OH + oh) * OW + ow] / (T)w.divisor;
      for (long ih = w.h0; ih < w.h1; ++ih)
        for (long iw = w.w0; iw < w.w1; ++iw) plane[ih * W + iw] += v;
    }
}

NB_KERNEL nb_adaptive_avg_pool2d(NB_GLOBAL T* out, long out_off, NB_GLOBAL const T* x, long x_off, long planes,
                                 long H, long W, long OH, long OW) {
  const long i = NB_INDEX;
  const long P = OH * OW;
  if (i >= planes * P) return;
  const long q = i / P, p = i - q * P, oh = p / OW, ow = p - oh * OW;
  NB_GLOBAL const T* plane = x + x_off + q * H * W;
  const long h0 = nb_adaptive_start(oh, H, OH), h1 = nb_adaptive_end(oh, H, OH);
  const long w0 = nb_adaptive_start(ow, W, OW), w1 = nb_adaptive_end(ow, W, OW);
  T acc = (T)0;
  for (long ih = h0; ih < h1; ++ih)
    for (long iw = w0; iw < w1; ++iw) acc += plane[ih * W + iw];
  out[out_off + i] = acc / (T)((h1 - h0) * (w1 - w0));
}

NB_KERNEL nb_adaptive_avg_pool2d_backward(NB_GLOBAL T* gx, long gx_off, NB_GLOBAL const T* gy, long gy_off,
                                          long planes, long H, long W, long OH, long OW) {
  const long q = NB_INDEX;
  if (q >= planes) return;
  NB_GLOBAL T* plane = gx + gx_off + q * H * W;
  for (long j = 0; j < H * W; ++j) plane[j] = (T)0;
  for (long oh = 0; oh < OH; ++oh) {
    const long h0 = nb_adaptive_start(oh, H, OH), h1 = nb_adaptive_end(oh, H, OH);
    for (long ow = 0; ow < OW; ++ow) {
      const long w0 = nb_adaptive_start(ow, W, OW), w1 = nb_adaptive_end(ow, W, OW);
      const T v = gy[gy_off + (q * OH + oh) * OW + ow] / (T)((h1 - h0) * (w1 - w0));
      for (long ih = h0; ih < h1; ++ih)
        for (long iw = w0; iw < w1; ++iw) plane[ih * W + iw] += v;
    }
  }
}
)DC";

}  // namespace nabla::device_c

#include "nabla/kernels/device/interpolate.h"

namespace nabla::device_c {

// Per axis the host passes `step` (float; nearest: in / out, or 1 / the
// user's scale) and `scale` (T; bilinear: (in - 1) / (out - 1) with
// align_corners, else in / out or 1 / the user's scale), each computed in
// its own type as the CPU does.
const char* const kInterpolateKernels = R"DC(
typedef struct {
  long i0, i1;
  T w0, w1;
} nb_tap;

NB_FN nb_tap nb_tap_at(long o, long in, long out, long bilinear, long align_corners, float step, T scale) {
  nb_tap t;
  if (!bilinear) {
    long src = o;
    if (out == 2 * in) {
      src = o >> 1;
    } else if (out != in) {
      src = (long)NB_FLOOR((float)o * step);
      src = src < in - 1 ? src : in - 1;
    }
    t.i0 = t.i1 = src;
    t.w0 = (T)1;
    t.w1 = (T)0;
    return t;
  }
  T real;
  if (align_corners) {
    real = scale * (T)o;
  } else {
    real = scale * ((T)o + (T)0.5) - (T)0.5;
    if (real < (T)0) real = (T)0;
  }
  const long i = (long)real;
  const T lambda = real - (T)i;
  t.i0 = i;
  t.i1 = i + (i < in - 1 ? 1 : 0);
  t.w0 = (T)1 - lambda;
  t.w1 = lambda;
  return t;
}

// out [planes, OH, OW] from x [planes, H, W].
NB_KERNEL nb_upsample2d(NB_GLOBAL T* out, long out_off, NB_GLOBAL const T* x, long x_off, long planes, long H,
                        long W, long OH, long OW, long bilinear, long align_corners, float step_h, float step_w,
                        T scale_h, T scale_w) {
  const long i = NB_INDEX;
  if (i >= planes * OH * OW) return;
  const long c = i % OW, r = (i / OW) % OH, q = i / (OH * OW);
  const nb_tap th = nb_tap_at(r, H, OH, bilinear, align_corners, step_h, scale_h);
  const nb_tap tw = nb_tap_at(c, W, OW, bilinear, align_corners, step_w, scale_w);
  NB_GLOBAL const T* row0 = x + x_off + (q * H + th.i0) * W;
  NB_GLOBAL const T* row1 = x + x_off + (q * H + th.i1) * W;
  if (!bilinear) {
    out[out_off + i] = row0[tw.i0];
    return;
  }
  out[out_off + i] = th.w0 * (tw.w0 * row0[tw.i0] + tw.w1 * row0[tw.i1]) +
                     th.w1 * (tw.w0 * row1[tw.i0] + tw.w1 * row1[tw.i1]);
}

// gx plane q [H, W] = the sum of every output gradient (gy [planes, OH, OW])
// times its taps' weights.
NB_KERNEL nb_upsample2d_backward(NB_GLOBAL T* gx, long gx_off, NB_GLOBAL const T* gy, long gy_off, long planes,
                                 long H, long W, long OH, long OW, long bilinear, long align_corners, float step_h,
                                 float step_w, T scale_h, T scale_w) {
  const long q = NB_INDEX;
  if (q >= planes) return;
  NB_GLOBAL T* plane = gx + gx_off + q * H * W;
  for (long j = 0; j < H * W; ++j) plane[j] = (T)0;
  for (long r = 0; r < OH; ++r) {
    const nb_tap th = nb_tap_at(r, H, OH, bilinear, align_corners, step_h, scale_h);
    NB_GLOBAL T* row0 = plane + th.i0 * W;
    NB_GLOBAL T* row1 = plane + th.i1 * W;
    NB_GLOBAL const T* g = gy + gy_off + (q * OH + r) * OW;
    for (long c = 0; c < OW; ++c) {
      const nb_tap tw = nb_tap_at(c, W, OW, bilinear, align_corners, step_w, scale_w);
      row0[tw.i0] += th.w0 * tw.w0 * g[c];
      row0[tw.i1] += th.w0 * tw.w1 * g[c];
      row1[tw.i0] += th.w1 * tw.w0 * g[c];
      row1[tw.i1] += th.w1 * tw.w1 * g[c];
    }
  }
}
)DC";

}  // namespace nabla::device_c

#include "nabla/kernels/device/conv.h"

namespace nabla::device_c {

// The column matrix of samples [n0, n0 + nb) has one row per (channel, tap)
// and one column per (sample, output position):
//   cols[(c * KH * KW + ki * KW + kj) * ld + n * P + oh * OW + ow], P = OH * OW, ld = nb * P,
// so that a group's rows are contiguous and each sample's columns are a
// [rows, P] matrix of pitch ld (the GEMM's B operand, batched over samples).
const char* const kConvKernels = R"DC(
// One work item per `span` consecutive entries of a (channel, tap) row of
// one sample (span <= P = OH * OW; the host picks it, conv.cpp): the input
// values that tap reads (x strided: sn, sc, sh, sw), or 0 in the padding,
// walked as runs along output rows. Whole rows (span = P) keep CPUs (PoCL)
// fast: an entry's coordinates take six 64-bit divisions, which they do not
// vectorize (5x slower per entry); shorter spans give a GPU enough threads
// when there are few rows (the first conv of a small CNN has 1600).
NB_KERNEL nb_im2col(NB_GLOBAL T* cols, long cols_off, NB_GLOBAL const T* x, long x_off, long sn, long sc, long sh,
                    long sw, long n0, long nb, long C, long H, long W, long KH, long KW, long OH, long OW,
                    long stride_h, long stride_w, long pad_h, long pad_w, long dil_h, long dil_w, long span) {
  const long P = OH * OW, chunks = (P + span - 1) / span;
  const long item = NB_INDEX;
  if (item >= C * KH * KW * nb * chunks) return;
  const long chunk = item % chunks, rest = item / chunks;  // rest: (row, sample), as the columns are laid out
  const long n = rest % nb, row = rest / nb;
  const long c = row / (KH * KW), k = row - c * (KH * KW);
  const long ki = k / KW, kj = k - ki * KW;
  long p = chunk * span;
  const long end = p + span < P ? p + span : P;
  long oh = p / OW, ow = p - oh * OW;
  NB_GLOBAL T* dst = cols + cols_off + rest * P + p;
  NB_GLOBAL const T* plane = x + x_off + (n0 + n) * sn + c * sc;
  while (p < end) {
    const long run = OW - ow < end - p ? OW - ow : end - p;
    const long ih = ki * dil_h - pad_h + oh * stride_h;
    if (ih < 0 || ih >= H) {
      for (long i = 0; i < run; ++i) dst[i] = (T)0;
    } else {
      NB_GLOBAL const T* src = plane + ih * sh;
      long iw = kj * dil_w - pad_w + ow * stride_w;
      for (long i = 0; i < run; ++i, iw += stride_w) dst[i] = iw >= 0 && iw < W ? src[iw * sw] : (T)0;
    }
    dst += run, p += run, ow = 0, ++oh;
  }
}

// One work item per image row out[n0 + n, c, ih, :] (contiguous
// [N, C, H, W]): for each element the bias (when has_bias) plus every column
// entry whose tap reads it, taps in (ki, kj) order as the CPU's col2im adds
// them. Stride 1 (the usual case) skips the divisibility test's division.
NB_KERNEL nb_col2im(NB_GLOBAL T* out, long out_off, NB_GLOBAL const T* cols, long cols_off, NB_GLOBAL const T* bias,
                    long bias_off, long has_bias, long n0, long nb, long C, long H, long W, long KH, long KW, long OH,
                    long OW, long stride_h, long stride_w, long pad_h, long pad_w, long dil_h, long dil_w) {
  const long item = NB_INDEX;
  if (item >= nb * C * H) return;
  const long ih = item % H, rest = item / H;
  const long c = rest % C, n = rest / C;
  const long P = OH * OW, ld = nb * P;
  NB_GLOBAL T* dst = out + out_off + (n0 * C * H + item) * W;
  NB_GLOBAL const T* src = cols + cols_off + c * KH * KW * ld + n * P;
  for (long iw = 0; iw < W; ++iw) {
    T acc = has_bias ? bias[bias_off + c] : (T)0;
    for (long ki = 0; ki < KH; ++ki) {
      const long th = ih + pad_h - ki * dil_h;
      if (th < 0 || th % stride_h != 0 || th / stride_h >= OH) continue;
      NB_GLOBAL const T* tap_row = src + ki * KW * ld + (th / stride_h) * OW;
      for (long kj = 0; kj < KW; ++kj) {
        long ow = iw + pad_w - kj * dil_w;
        if (ow < 0) continue;
        if (stride_w != 1) {
          if (ow % stride_w != 0) continue;
          ow /= stride_w;
        }
        if (ow < OW) acc += tap_row[kj * ld + ow];
      }
    }
    dst[iw] = acc;
  }
}

// out[start + i] = bias[(i / P) % C] for i < n (start: a multiple of C * P):
// a block of [N, C, P] outputs starting at their bias, which the GEMM then
// adds onto (beta = 1), as on the CPU.
NB_KERNEL nb_bias_rows(NB_GLOBAL T* out, long out_off, NB_GLOBAL const T* bias, long bias_off, long C, long P,
                       long start, long n) {
  const long i = NB_INDEX;
  if (i >= n) return;
  out[out_off + start + i] = bias[bias_off + (i / P) % C];
}
)DC";

}  // namespace nabla::device_c

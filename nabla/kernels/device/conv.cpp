#include "nabla/kernels/device/conv.h"

namespace nabla::device_c {

// The column matrix of samples [n0, n0 + nb) has one row per (channel, tap)
// and one column per (sample, output position):
//   cols[(c * KH * KW + ki * KW + kj) * ld + n * P + oh * OW + ow], P = OH * OW, ld = nb * P,
// so that a group's rows are contiguous and each sample's columns are a
// [rows, P] matrix of pitch ld (the GEMM's B operand, batched over samples).
const char* const kConvKernels = R"DC(
// One work item per column-matrix entry: the input value its window tap reads
// (x strided: sn, sc, sh, sw), or 0 in the padding.
NB_KERNEL nb_im2col(NB_GLOBAL T* cols, long cols_off, NB_GLOBAL const T* x, long x_off, long sn, long sc, long sh,
                    long sw, long n0, long nb, long C, long H, long W, long KH, long KW, long OH, long OW,
                    long stride_h, long stride_w, long pad_h, long pad_w, long dil_h, long dil_w) {
  const long i = NB_INDEX;
  const long P = OH * OW, ld = nb * P;
  if (i >= C * KH * KW * ld) return;
  const long row = i / ld, col = i - row * ld;
  const long n = col / P, p = col - n * P;
  const long oh = p / OW, ow = p - oh * OW;
  const long c = row / (KH * KW), k = row - c * (KH * KW);
  const long ki = k / KW, kj = k - ki * KW;
  const long ih = oh * stride_h - pad_h + ki * dil_h, iw = ow * stride_w - pad_w + kj * dil_w;
  T v = (T)0;
  if (ih >= 0 && ih < H && iw >= 0 && iw < W) v = x[x_off + (n0 + n) * sn + c * sc + ih * sh + iw * sw];
  cols[cols_off + i] = v;
}

// One work item per image element out[n0 + n, c, ih, iw] (contiguous
// [N, C, H, W]): the bias (when has_bias) plus every column entry whose tap
// reads (ih, iw), taps in (ki, kj) order as the CPU's col2im adds them.
NB_KERNEL nb_col2im(NB_GLOBAL T* out, long out_off, NB_GLOBAL const T* cols, long cols_off, NB_GLOBAL const T* bias,
                    long bias_off, long has_bias, long n0, long nb, long C, long H, long W, long KH, long KW, long OH,
                    long OW, long stride_h, long stride_w, long pad_h, long pad_w, long dil_h, long dil_w) {
  const long i = NB_INDEX;
  if (i >= nb * C * H * W) return;
  const long iw = i % W;
  long r = i / W;
  const long ih = r % H;
  r /= H;
  const long c = r % C, n = r / C;
  const long P = OH * OW, ld = nb * P;
  T acc = has_bias ? bias[bias_off + c] : (T)0;
  for (long ki = 0; ki < KH; ++ki) {
    const long th = ih + pad_h - ki * dil_h;
    if (th < 0 || th % stride_h != 0 || th / stride_h >= OH) continue;
    const long oh = th / stride_h;
    for (long kj = 0; kj < KW; ++kj) {
      const long tw = iw + pad_w - kj * dil_w;
      if (tw < 0 || tw % stride_w != 0 || tw / stride_w >= OW) continue;
      acc += cols[cols_off + (c * KH * KW + ki * KW + kj) * ld + n * P + oh * OW + tw / stride_w];
    }
  }
  out[out_off + n0 * C * H * W + i] = acc;
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

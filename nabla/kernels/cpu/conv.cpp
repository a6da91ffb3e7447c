// im2col + GEMM convolution kernels (see conv.h for the block scheme).
#include "nabla/kernels/cpu/conv.h"

#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "nabla/core/parallel.h"
#include "nabla/kernels/cpu/conv_onednn.h"
#include "nabla/kernels/cpu/conv_small.h"
#include "nabla/kernels/cpu/elementwise.h"

namespace nabla::cpu {
namespace {

// Column-buffer budget in elements (32 MiB of float32): bounds memory for
// large layers while still batching many small samples into one GEMM.
constexpr int64_t kColumnBudget = int64_t{8} << 20;
// Output planes below this many positions make the weight gradient's
// per-sample GEMMs too short in K (= OH*OW) for BLAS: 14x14 (196) ran about
// 30% faster as one GEMM over the block, 28x28 (784) about 2x slower, because
// of the packing copy of grad_output it needs.
constexpr int64_t kSmallPlane = 256;

template <class T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
          T beta, T* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {  // BLAS may not accept empty operands: C = beta * C by hand
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == T(0) ? T(0) : beta * c[i * ldc + j];
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    // oneDNN's sgemm: faster than OpenBLAS's on these shapes (bench/README.md).
    dnnl_status_t st = dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
    NABLA_CHECK(st == dnnl_success, "conv2d: oneDNN sgemm failed with status ", static_cast<int>(st));
  } else {
    auto TA = ta ? CblasTrans : CblasNoTrans, TB = tb ? CblasTrans : CblasNoTrans;
    cblas_dgemm(CblasRowMajor, TA, TB, (int)m, (int)n, (int)k, 1.0, a, (int)lda, b, (int)ldb, beta, c, (int)ldc);
  }
}

// Output positions [lo, hi) along one axis whose input index o*stride - off
// falls inside [0, size): the rest read (or write) padding.
struct Range {
  int64_t lo, hi;
};
Range valid_range(int64_t out_size, int64_t size, int64_t stride, int64_t off) {
  int64_t lo = off <= 0 ? 0 : (off + stride - 1) / stride;
  int64_t hi = size + off - 1 < 0 ? 0 : std::min(out_size, (size + off - 1) / stride + 1);
  lo = std::min(lo, hi);
  return {lo, hi};
}

// The KH*KW rows of one input channel (strides sh, sw) into cols (row pitch ld).
template <class T>
void im2col_channel(const T* x, int64_t sh, int64_t sw, const Conv2dGeometry& g, T* cols, int64_t ld) {
  for (int64_t ki = 0; ki < g.kernel_h; ++ki) {
    int64_t off_h = g.pad_h - ki * g.dilation_h;
    Range rh = valid_range(g.out_h, g.in_h, g.stride_h, off_h);
    for (int64_t kj = 0; kj < g.kernel_w; ++kj) {
      int64_t off_w = g.pad_w - kj * g.dilation_w;
      Range rw = valid_range(g.out_w, g.in_w, g.stride_w, off_w);
      T* row = cols + (ki * g.kernel_w + kj) * ld;
      for (int64_t oh = 0; oh < g.out_h; ++oh) {
        T* dst = row + oh * g.out_w;
        if (oh < rh.lo || oh >= rh.hi) {
          std::fill(dst, dst + g.out_w, T(0));
          continue;
        }
        const T* src = x + (oh * g.stride_h - off_h) * sh;
        std::fill(dst, dst + rw.lo, T(0));
        if (g.stride_w == 1 && sw == 1) {
          std::memcpy(dst + rw.lo, src + (rw.lo - off_w), sizeof(T) * (rw.hi - rw.lo));
        } else {
          for (int64_t ow = rw.lo; ow < rw.hi; ++ow) dst[ow] = src[(ow * g.stride_w - off_w) * sw];
        }
        std::fill(dst + rw.hi, dst + g.out_w, T(0));
      }
    }
  }
}

// Adds the KH*KW rows of one channel from cols back into a contiguous plane.
template <class T>
void col2im_channel(const T* cols, int64_t ld, const Conv2dGeometry& g, T* x) {
  for (int64_t ki = 0; ki < g.kernel_h; ++ki) {
    int64_t off_h = g.pad_h - ki * g.dilation_h;
    Range rh = valid_range(g.out_h, g.in_h, g.stride_h, off_h);
    for (int64_t kj = 0; kj < g.kernel_w; ++kj) {
      int64_t off_w = g.pad_w - kj * g.dilation_w;
      Range rw = valid_range(g.out_w, g.in_w, g.stride_w, off_w);
      const T* row = cols + (ki * g.kernel_w + kj) * ld;
      for (int64_t oh = rh.lo; oh < rh.hi; ++oh) {
        const T* src = row + oh * g.out_w;
        T* dst = x + (oh * g.stride_h - off_h) * g.in_w;
        for (int64_t ow = rw.lo; ow < rw.hi; ++ow) dst[ow * g.stride_w - off_w] += src[ow];
      }
    }
  }
}

// How many samples share one column buffer.
int64_t block_size(const Conv2dGeometry& g) {
  int64_t per_sample = std::max<int64_t>(1, g.in_channels * g.kernel_h * g.kernel_w * g.out_h * g.out_w);
  return std::clamp<int64_t>(kColumnBudget / per_sample, 1, std::max<int64_t>(g.batch, 1));
}

// Parallel grain in (sample, channel) tasks: enough elements per task to pay
// for a thread hand-off.
int64_t task_grain(int64_t elems_per_task) {
  return std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(elems_per_task, 1));
}

// Columns of samples [n0, n0+nb) of x: [C*KH*KW, nb*OH*OW].
template <class T>
void im2col_block(const Tensor& x, int64_t n0, int64_t nb, const Conv2dGeometry& g, T* cols) {
  const T* px = static_cast<const T*>(x.raw_data());
  const Shape& st = x.strides();
  int64_t P = g.out_h * g.out_w, ld = nb * P, K = g.kernel_h * g.kernel_w, C = g.in_channels;
  parallel_for(0, nb * C, task_grain(K * P), [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      int64_t n = t / C, c = t % C;
      im2col_channel(px + (n0 + n) * st[0] + c * st[1], st[2], st[3], g, cols + c * K * ld + n * P, ld);
    }
  });
}

// [nb, Ch, P] slice of a strided 4-D tensor -> [Ch, nb*P] contiguous.
template <class T>
void pack_block(const Tensor& t, int64_t n0, int64_t nb, T* dst) {
  const T* p = static_cast<const T*>(t.raw_data());
  const Shape& st = t.strides();
  int64_t Ch = t.sizes()[1], H = t.sizes()[2], W = t.sizes()[3], P = H * W, ld = nb * P;
  parallel_for(0, nb * Ch, task_grain(P), [&](int64_t b, int64_t e) {
    for (int64_t q = b; q < e; ++q) {
      int64_t n = q / Ch, c = q % Ch;
      const T* src = p + (n0 + n) * st[0] + c * st[1];
      T* out = dst + c * ld + n * P;
      if (st[3] == 1 && (st[2] == W || H == 1)) {  // a contiguous plane: the usual case
        std::memcpy(out, src, sizeof(T) * P);
        continue;
      }
      for (int64_t i = 0; i < H; ++i)
        for (int64_t j = 0; j < W; ++j) out[i * W + j] = src[i * st[2] + j * st[3]];
    }
  });
}

// Where sample n (of a block starting at n0) of a 4-D tensor sits as a
// [Ch, P] matrix: in place (row pitch P) when the sample is contiguous, else
// packed by pack_block into `buffer` (allocated on first use; row pitch nb * P).
template <class T>
struct SampleRows {
  const T* base;
  int64_t sample_stride, ld;
  const T* operator()(int64_t n) const { return base + n * sample_stride; }
};
template <class T>
SampleRows<T> sample_rows(const Tensor& t, int64_t n0, int64_t nb, int64_t max_nb, Tensor& buffer) {
  const Shape& st = t.strides();
  int64_t H = t.sizes()[2], W = t.sizes()[3], P = H * W;
  bool in_place = (st[3] == 1 || W == 1) && (st[2] == W || H == 1) && (st[1] == P || t.sizes()[1] == 1);
  if (in_place) return {static_cast<const T*>(t.raw_data()) + n0 * st[0], st[0], P};
  if (!buffer.defined()) buffer = make_empty({t.sizes()[1] * max_nb * P}, t.dtype(), t.device());
  T* packed = static_cast<T*>(buffer.raw_data());
  pack_block<T>(t, n0, nb, packed);
  return {packed, P, nb * P};
}

template <class T>
void conv2d_forward_t(const Tensor& x, const Tensor& w_in, const Tensor& bias_in, const Tensor& out,
                      const Conv2dGeometry& g) {
  Tensor w = contiguous_input(w_in);
  Tensor bias = bias_in.defined() ? contiguous_input(bias_in) : bias_in;
  const T* pw = static_cast<const T*>(w.raw_data());
  const T* pb = bias.defined() ? static_cast<const T*>(bias.raw_data()) : nullptr;
  T* po = static_cast<T*>(out.raw_data());
  int64_t P = g.out_h * g.out_w, K = g.kernel_h * g.kernel_w, OC = g.out_channels;
  int64_t Cg = g.in_channels / g.groups, OCg = OC / g.groups, CgK = Cg * K;
  int64_t B = block_size(g);
  Tensor cols = make_empty({g.in_channels * K * B * P}, out.dtype(), out.device());
  T* pc = static_cast<T*>(cols.raw_data());
  get_num_threads();  // makes sure BLAS follows nabla's thread count
  for (int64_t n0 = 0; n0 < g.batch; n0 += B) {
    int64_t nb = std::min(B, g.batch - n0), ld = nb * P;
    im2col_block<T>(x, n0, nb, g, pc);
    // The bias goes in first; the GEMMs then add onto it (beta = 1).
    if (pb)
      parallel_for(0, nb * OC, task_grain(P), [&](int64_t b, int64_t e) {
        for (int64_t q = b; q < e; ++q) std::fill(po + (n0 * OC + q) * P, po + (n0 * OC + q + 1) * P, pb[q % OC]);
      });
    for (int64_t n = 0; n < nb; ++n)
      for (int64_t grp = 0; grp < g.groups; ++grp)
        gemm<T>(false, false, OCg, P, CgK, pw + grp * OCg * CgK, CgK, pc + grp * CgK * ld + n * P, ld,
                pb ? T(1) : T(0), po + ((n0 + n) * OC + grp * OCg) * P, P);
  }
}

template <class T>
void conv_transpose2d_forward_t(const Tensor& x, const Tensor& w_in, const Tensor& bias_in, const Tensor& out,
                                const Conv2dGeometry& g) {
  Tensor w = contiguous_input(w_in);
  Tensor bias = bias_in.defined() ? contiguous_input(bias_in) : bias_in;
  const T* pw = static_cast<const T*>(w.raw_data());
  const T* pb = bias.defined() ? static_cast<const T*>(bias.raw_data()) : nullptr;
  T* po = static_cast<T*>(out.raw_data());
  int64_t P = g.out_h * g.out_w, K = g.kernel_h * g.kernel_w, C = g.in_channels, OC = g.out_channels;
  int64_t Cg = C / g.groups, OCg = OC / g.groups, CgK = Cg * K, HW = g.in_h * g.in_w;
  int64_t B = block_size(g);
  Tensor cols = make_empty({C * K * B * P}, out.dtype(), out.device());
  Tensor packed;
  T* pc = static_cast<T*>(cols.raw_data());
  get_num_threads();
  for (int64_t n0 = 0; n0 < g.batch; n0 += B) {
    int64_t nb = std::min(B, g.batch - n0), ld = nb * P;
    SampleRows<T> xs = sample_rows<T>(x, n0, nb, B, packed);
    // cols_g [CgK, P] of sample n = W_g^T [CgK, OCg] @ x_g [OCg, P]
    for (int64_t n = 0; n < nb; ++n)
      for (int64_t grp = 0; grp < g.groups; ++grp)
        gemm<T>(true, false, CgK, P, OCg, pw + grp * OCg * CgK, CgK, xs(n) + grp * OCg * xs.ld, xs.ld, T(0),
                pc + grp * CgK * ld + n * P, ld);
    parallel_for(0, nb * C, task_grain(K * P), [&](int64_t b, int64_t e) {
      for (int64_t q = b; q < e; ++q) {
        int64_t n = q / C, c = q % C;
        T* plane = po + ((n0 + n) * C + c) * HW;
        std::fill(plane, plane + HW, pb ? pb[c] : T(0));
        col2im_channel(pc + c * K * ld + n * P, ld, g, plane);
      }
    });
  }
}

template <class T>
void conv2d_weight_grad_t(const Tensor& x, const Tensor& gy, const Tensor& gw, const Conv2dGeometry& g) {
  T* pg = static_cast<T*>(gw.raw_data());
  int64_t P = g.out_h * g.out_w, K = g.kernel_h * g.kernel_w, OC = g.out_channels;
  int64_t Cg = g.in_channels / g.groups, OCg = OC / g.groups, CgK = Cg * K;
  if (g.batch == 0 || P == 0) {
    std::fill(pg, pg + gw.numel(), T(0));
    return;
  }
  int64_t B = block_size(g);
  Tensor cols = make_empty({g.in_channels * K * B * P}, gw.dtype(), gw.device());
  Tensor packed;
  T* pc = static_cast<T*>(cols.raw_data());
  get_num_threads();
  for (int64_t n0 = 0; n0 < g.batch; n0 += B) {
    int64_t nb = std::min(B, g.batch - n0), ld = nb * P;
    im2col_block<T>(x, n0, nb, g, pc);
    if (P < kSmallPlane) {
      // gw_g [OCg, CgK] (+)= gy_g [OCg, nb*P] @ cols_g^T [nb*P, CgK]: one GEMM for the block
      if (!packed.defined()) packed = make_empty({OC * B * P}, gw.dtype(), gw.device());
      T* py = static_cast<T*>(packed.raw_data());
      pack_block<T>(gy, n0, nb, py);
      for (int64_t grp = 0; grp < g.groups; ++grp)
        gemm<T>(false, true, OCg, CgK, ld, py + grp * OCg * ld, ld, pc + grp * CgK * ld, ld, n0 == 0 ? T(0) : T(1),
                pg + grp * OCg * CgK, CgK);
      continue;
    }
    SampleRows<T> ys = sample_rows<T>(gy, n0, nb, B, packed);
    // gw_g [OCg, CgK] (+)= gy_g [OCg, P] @ cols_g^T [P, CgK], sample by sample
    for (int64_t n = 0; n < nb; ++n)
      for (int64_t grp = 0; grp < g.groups; ++grp)
        gemm<T>(false, true, OCg, CgK, P, ys(n) + grp * OCg * ys.ld, ys.ld, pc + grp * CgK * ld + n * P, ld,
                n0 + n == 0 ? T(0) : T(1), pg + grp * OCg * CgK, CgK);
  }
}

template <class Fn>
void float_dispatch(DType t, const char* what, Fn&& fn) {
  if (t == kFloat32) fn.template operator()<float>();
  else if (t == kFloat64) fn.template operator()<double>();
  else fail(what, ": unsupported dtype ", t, " (expected float32 or float64)");
}

bool onednn_default() {
  const char* env = std::getenv("NABLA_CONV_ONEDNN");
  return !(env && env[0] == '0');
}
std::atomic<bool> g_use_onednn{onednn_default()};

// The im2col kernels write contiguous outputs: a channels-last output (the
// dispatcher's choice for channels-last operands) is computed in a
// contiguous buffer and copied in.
template <class Fn>
void into_contiguous(const Tensor& out, Fn&& fn) {
  if (out.is_contiguous()) return fn(out);
  Tensor tmp = make_empty(out.sizes(), out.dtype(), out.device());
  fn(tmp);
  const Tensor src[1] = {tmp};
  Tensor dst[1] = {out};
  cast_kernel(src, {}, dst);
}

}  // namespace

void set_conv_onednn_enabled(bool on) { g_use_onednn.store(on); }
bool conv_onednn_enabled() { return g_use_onednn.load(); }

void conv2d_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& out,
                    const Conv2dGeometry& g) {
  if (out.numel() == 0) return;
  // Few input taps (a one-channel first layer) with an NCHW output: the
  // direct kernels, without oneDNN's reorders (conv_small.h).
  if (conv_onednn_enabled() && small_conv2d_forward(x, w, bias, out, g, /*relu=*/false)) return;
  if (conv_onednn_enabled() && onednn_conv2d_forward(x, w, bias, out, g)) return;
  into_contiguous(out, [&](const Tensor& o) {
    float_dispatch(o.dtype(), "conv2d", [&]<class T>() { conv2d_forward_t<T>(x, w, bias, o, g); });
  });
}

void conv_transpose2d_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& out,
                              const Conv2dGeometry& g) {
  if (out.numel() == 0) return;
  if (conv_onednn_enabled() && onednn_conv_transpose2d_forward(x, w, bias, out, g)) return;
  into_contiguous(out, [&](const Tensor& o) {
    float_dispatch(o.dtype(), "conv_transpose2d",
                   [&]<class T>() { conv_transpose2d_forward_t<T>(x, w, bias, o, g); });
  });
}

void conv2d_weight_grad(const Tensor& x, const Tensor& gy, const Tensor& gw, const Conv2dGeometry& g) {
  if (gw.numel() == 0) return;
  if (conv_onednn_enabled() && small_conv2d_weight_grad(x, gy, gw, g)) return;
  if (conv_onednn_enabled() && onednn_conv2d_weight_grad(x, gy, gw, g)) return;
  float_dispatch(gw.dtype(), "conv2d_weight_grad", [&]<class T>() { conv2d_weight_grad_t<T>(x, gy, gw, g); });
}

}  // namespace nabla::cpu

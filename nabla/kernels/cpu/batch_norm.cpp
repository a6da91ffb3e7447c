// The CPU kernels of batch norm's table ops (ops/batch_norm_ops.cpp), each a
// few passes over the input where the composites they replace make one pass
// per op (mean, var, subtract, multiply, ...) and as many temporaries:
//   native_batch_norm:          one pass for each channel's mean and variance,
//                               one writing y;
//   native_batch_norm_backward: one pass for sum(dy) and sum(dy (x - mean)),
//                               one writing dx;
//   channel_affine:             one pass.
// native_batch_norm_relu and its backward are the same kernels with ReLU
// applied as y is written, and the gradient masked where y <= 0 as dy is
// read (relu's threshold_backward, folded into both backward passes).
// They walk x in its own memory: NCHW (a contiguous run of H*W values per
// batch and channel: "planar") or channels-last NHWC and [N, C] inputs (runs
// of C values, one per channel: "interleaved"). Other strides are copied to
// NCHW first, and an output the dispatcher made in the other format is
// computed in a buffer and copied in.
//
// Accuracy: the statistics are sums of x - K_c in double, K_c the channel's
// first value (shifted sums: no cancellation when the mean is large against
// the spread, e.g. images with values around 1e4), and x - mean is computed as
// (x - mean_hi) - mean_lo with the double mean split into two values of x's
// dtype, so a float32 input far from 0 loses nothing to a rounded mean.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "nabla/core/memory_format.h"
#include "nabla/core/parallel.h"
#include "nabla/kernels/cpu/nn_util.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {

extern const OpDef native_batch_norm_op, native_batch_norm_backward_op, native_batch_norm_relu_op,
    native_batch_norm_relu_backward_op, channel_affine_op;

namespace cpu {
namespace {

// x [N, C, *] as the loops see it.
struct Geometry {
  int64_t outer = 0;     // N
  int64_t channels = 0;  // C
  int64_t inner = 1;     // values per batch and channel (H*W)
  bool planar = true;    // NCHW runs of `inner`; else rows of C (rows = outer * inner)
  int64_t count() const { return outer * inner; }  // values per channel
};

Geometry geometry_of(const Tensor& x, bool planar) {
  Geometry g;
  g.outer = x.sizes()[0];
  g.channels = x.sizes()[1];
  for (int64_t d = 2; d < x.dim(); ++d) g.inner *= x.sizes()[d];
  g.planar = planar && g.inner > 1;  // [N, C] (or all sizes 1 past C): rows of C
  return g;
}

// Whether t is laid out as the loops expect: NCHW-contiguous for `planar`,
// else channels-last (x 4-d in NHWC memory).
bool in_layout(const Tensor& t, bool planar) {
  return planar ? t.is_contiguous() : is_contiguous(t, MemoryFormat::ChannelsLast);
}

// Which loops x takes: channels-last memory stays as it is, anything else is
// (made) NCHW-contiguous. (Contiguous [N, C] or [N, C, 1, 1] inputs are rows
// of C values, which geometry_of sees.)
bool planar_input(const Tensor& x) {
  return !(x.dim() == 4 && !x.is_contiguous() && is_contiguous(x, MemoryFormat::ChannelsLast));
}

Tensor to_layout(const Tensor& t, bool planar) {
  if (in_layout(t, planar)) return t;
  Tensor out = make_empty(t.sizes(), t.dtype(), t.device(), planar ? MemoryFormat::Contiguous : MemoryFormat::ChannelsLast);
  const Tensor src[1] = {t};
  Tensor dst[1] = {out};
  cast_kernel(src, {}, dst);
  return out;
}

// Runs fn on `out` when it is in the layout, else on a buffer copied into out after.
template <class Fn>
void write_in_layout(Tensor& out, bool planar, Fn&& fn) {
  if (in_layout(out, planar)) return fn(out);
  Tensor tmp = make_empty(out.sizes(), out.dtype(), out.device(),
                          planar ? MemoryFormat::Contiguous : MemoryFormat::ChannelsLast);
  fn(tmp);
  const Tensor src[1] = {tmp};
  Tensor dst[1] = {out};
  cast_kernel(src, {}, dst);
}

// Per channel c, sums[c][k] = the sum over the channel's values of f_k, with
// (f_0, ..., f_K-1) = term(c, i) for the value at flat offset i; in double,
// with independent partial sums (one per column of a plane's values, or per
// channel in a block of rows) so the loops vectorize. The order of the additions depends on the
// shape only, not on the number of threads.
template <int K>
using Sums = std::vector<std::array<double, K>>;

template <int K, class Term>
Sums<K> channel_sums(const Geometry& g, Term&& term) {
  const int64_t C = g.channels;
  Sums<K> sums(static_cast<std::size_t>(C), std::array<double, K>{});
  if (g.planar) {
    // A channel is a matrix [N rows][H*W]: summed down the rows into one
    // partial sum per column (lanes that vectorize), W columns at a time,
    // then across the columns.
    constexpr int64_t W = 256;
    const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(g.count(), 1));
    parallel_for(0, C, grain, [&](int64_t c0, int64_t c1) {
      double part[K][W];
      for (int64_t c = c0; c < c1; ++c) {
        std::array<double, K> total{};
        for (int64_t j0 = 0; j0 < g.inner; j0 += W) {
          const int64_t w = std::min(W, g.inner - j0);
          for (int k = 0; k < K; ++k) std::fill(part[k], part[k] + w, 0.0);
          for (int64_t n = 0; n < g.outer; ++n) {
            const int64_t base = (n * C + c) * g.inner + j0;
            for (int64_t j = 0; j < w; ++j) {
              const std::array<double, K> f = term(c, base + j);
              for (int k = 0; k < K; ++k) part[k][j] += f[k];
            }
          }
          for (int k = 0; k < K; ++k)
            for (int64_t j = 0; j < w; ++j) total[k] += part[k][j];
        }
        sums[static_cast<std::size_t>(c)] = total;
      }
    });
    return sums;
  }
  // Rows of C values: blocks of rows, each summed over vectors of channels.
  const int64_t rows = g.count();
  const int64_t blocks = std::clamp<int64_t>(rows * C / kParallelGrain, 1, 64);
  std::vector<double> part(static_cast<std::size_t>(blocks * K * C), 0.0);
  parallel_for(0, blocks, 2, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      double* __restrict q = part.data() + b * K * C;  // [K][C]
      for (int64_t r = rows * b / blocks; r < rows * (b + 1) / blocks; ++r)
        for (int64_t c = 0; c < C; ++c) {
          const std::array<double, K> f = term(c, r * C + c);
          for (int k = 0; k < K; ++k) q[k * C + c] += f[k];
        }
    }
  });
  for (int64_t b = 0; b < blocks; ++b)
    for (int k = 0; k < K; ++k)
      for (int64_t c = 0; c < C; ++c)
        sums[static_cast<std::size_t>(c)][k] += part[static_cast<std::size_t>((b * K + k) * C + c)];
  return sums;
}

// out[i] = f(c, i) for every value; f reads its channel's constants.
template <class F>
void channel_map(const Geometry& g, F&& f) {
  const int64_t C = g.channels;
  if (g.planar) {
    const int64_t grain = std::max<int64_t>(1, kParallelGrain / g.inner);
    parallel_for(0, g.outer * C, grain, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) f.plane(p % C, p * g.inner, g.inner);
    });
  } else {
    const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(C, 1));
    parallel_for(0, g.count(), grain, [&](int64_t r0, int64_t r1) { f.rows(r0 * C, r1 - r0, C); });
  }
}

// The channel mean as two values of T whose sum is the double mean to twice
// T's precision: (x - hi) - lo loses nothing to rounding the mean.
template <class T>
void split_mean(double mean, T& hi, T& lo) {
  hi = static_cast<T>(mean);
  lo = std::isfinite(mean) ? static_cast<T>(mean - static_cast<double>(hi)) : T(0);
}

// relu's value, bit for bit (kernels/cpu/unary_ops.cpp: NaN kept, -0 -> +0).
template <bool Relu, class T>
T relu_if(T v) {
  if constexpr (Relu) return !(v <= T(0)) ? v : T(0);
  return v;
}

// (x - c) * s + b per channel, constants in T, then ReLU when Relu: the
// normalizing pass of the forward, and channel_affine.
template <class T, bool Relu = false>
struct AffineMap {
  const T* __restrict x;
  T* __restrict y;
  const T *hi, *lo, *s, *b;
  void plane(int64_t c, int64_t at, int64_t len) const {
    const T h = hi[c], l = lo[c], sc = s[c], sh = b[c];
    for (int64_t i = at; i < at + len; ++i) y[i] = relu_if<Relu>(((x[i] - h) - l) * sc + sh);
  }
  void rows(int64_t at, int64_t nrows, int64_t C) const {
    for (int64_t r = 0; r < nrows; ++r, at += C)
      for (int64_t c = 0; c < C; ++c) y[at + c] = relu_if<Relu>(((x[at + c] - hi[c]) - lo[c]) * s[c] + b[c]);
  }
};

// The gradient reaching batch norm's output: dy, or with ReLU after it
// (`y` its output) relu's threshold_backward(dy, y, 0): 0 where y <= 0, dy
// elsewhere (a NaN y passes dy, as in PyTorch). The mask is an AND of dy's
// bits (+0 where cleared), made without a branch: GCC turns `y <= 0 ? 0 : dy`
// into one in the statistics loop, which then does not vectorize (5-10x
// slower), and a branch in the scalar remainders (all of a 2x2 plane)
// mispredicts on ReLU's half-zero outputs.
template <class T, bool Relu>
struct GradIn {
  using Bits = std::conditional_t<sizeof(T) == 8, uint64_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint16_t>>;
  const T* __restrict dy;
  const T* __restrict y;  // read only when Relu
  T operator[](int64_t i) const {
    if constexpr (Relu) {
      const Bits keep = static_cast<Bits>(Bits(0) - static_cast<Bits>(!(y[i] <= T(0))));  // 0 or all ones
      return std::bit_cast<T>(static_cast<Bits>(std::bit_cast<Bits>(dy[i]) & keep));
    }
    return dy[i];
  }
};

// dx = a dy + k (x - mean) + d per channel (the backward's second pass).
template <class T, bool Relu>
struct BackwardMap {
  GradIn<T, Relu> dy;
  const T* __restrict x;
  T* __restrict dx;
  const T *hi, *lo, *a, *k, *d;
  void plane(int64_t c, int64_t at, int64_t len) const {
    const T h = hi[c], l = lo[c], ac = a[c], kc = k[c], dc = d[c];
    for (int64_t i = at; i < at + len; ++i) dx[i] = ac * dy[i] + kc * ((x[i] - h) - l) + dc;
  }
  void rows(int64_t at, int64_t nrows, int64_t C) const {
    for (int64_t r = 0; r < nrows; ++r, at += C)
      for (int64_t c = 0; c < C; ++c) dx[at + c] = a[c] * dy[at + c] + k[c] * ((x[at + c] - hi[c]) - lo[c]) + d[c];
  }
};

// Value c of an optional [C] vector (in any float dtype), else `fallback`.
std::vector<double> channel_values(const Tensor& t, int64_t C, double fallback) {
  std::vector<double> v(static_cast<std::size_t>(C), fallback);
  if (!t.defined()) return v;
  visit_float(t.dtype(), "batch_norm", [&]<class T>() {
    const T* p = t.data_ptr<T>();
    for (int64_t c = 0; c < C; ++c) v[static_cast<std::size_t>(c)] = static_cast<double>(p[c * t.stride(0)]);
  });
  return v;
}

// Each channel's mean and biased variance. NaN and inf give what the plain
// sums give (PyTorch's): a NaN mean, or +-inf, and then a NaN variance.
template <class T>
void channel_stats(const T* x, const Geometry& g, std::vector<double>& mean, std::vector<double>& var) {
  const int64_t C = g.channels;
  const double n = static_cast<double>(g.count());
  std::vector<T> shift(static_cast<std::size_t>(C), T(0));
  if (g.count() > 0)
    for (int64_t c = 0; c < C; ++c) shift[static_cast<std::size_t>(c)] = x[g.planar ? c * g.inner : c];
  const T* k = shift.data();
  const Sums<2> s = channel_sums<2>(g, [x, k](int64_t c, int64_t i) {
    const double d = static_cast<double>(x[i] - k[c]);
    return std::array<double, 2>{d, d * d};
  });
  mean.resize(static_cast<std::size_t>(C));
  var.resize(static_cast<std::size_t>(C));
  bool plain = false;
  for (int64_t c = 0; c < C; ++c) {
    const std::size_t u = static_cast<std::size_t>(c);
    mean[u] = static_cast<double>(k[c]) + s[u][0] / n;
    var[u] = std::max(0.0, (s[u][1] - s[u][0] * s[u][0] / n) / n);
    plain |= !std::isfinite(mean[u]);
  }
  if (!plain) return;
  // An inf or NaN in some channel: its shifted sums are NaN (inf - inf); the
  // plain sum says whether the mean is +inf, -inf or NaN.
  const Sums<1> total =
      channel_sums<1>(g, [x](int64_t, int64_t i) { return std::array<double, 1>{static_cast<double>(x[i])}; });
  for (int64_t c = 0; c < C; ++c) {
    const std::size_t u = static_cast<std::size_t>(c);
    if (std::isfinite(mean[u])) continue;
    mean[u] = total[u][0] / n;
    var[u] = std::numeric_limits<double>::quiet_NaN();
  }
}

template <class T>
std::vector<T> as(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

// inputs: input[, weight][, bias]; attrs: eps, has_weight, has_bias.
// outputs: y, mean, var (biased); y = relu(batch norm) when Relu
// (native_batch_norm_relu).
template <bool Relu>
void native_batch_norm_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const bool planar = planar_input(in[0]);
  const Tensor x = to_layout(in[0], planar);
  const Geometry g = geometry_of(x, planar);
  const int64_t C = g.channels;
  const bool has_w = a.b(1), has_b = a.b(2);
  const std::vector<double> w = channel_values(has_w ? in[1] : Tensor(), C, 1.0);
  const std::vector<double> b = channel_values(has_b ? in[1 + has_w] : Tensor(), C, 0.0);
  visit_float(x.dtype(), Relu ? "native_batch_norm_relu" : "native_batch_norm", [&]<class T>() {
    std::vector<double> mean, var;
    channel_stats(x.data_ptr<T>(), g, mean, var);
    std::vector<T> hi(static_cast<std::size_t>(C)), lo(hi.size()), scale(hi.size());
    for (int64_t c = 0; c < C; ++c) {
      const std::size_t u = static_cast<std::size_t>(c);
      split_mean(mean[u], hi[u], lo[u]);
      scale[u] = static_cast<T>(w[u] / std::sqrt(var[u] + a.f(0)));
    }
    const std::vector<T> shift = as<T>(b);
    write_in_layout(out[0], planar, [&](Tensor& y) {
      channel_map(g, AffineMap<T, Relu>{x.data_ptr<T>(), y.data_ptr<T>(), hi.data(), lo.data(), scale.data(),
                                        shift.data()});
    });
    std::copy(mean.begin(), mean.end(), out[1].data_ptr<T>());
    std::copy(var.begin(), var.end(), out[2].data_ptr<T>());
  });
}

// inputs: grad_output, input, mean, var[, weight]; attrs: eps. outputs: dx, dweight, dbias.
// PyTorch's formula, per channel of n values with r = 1/sqrt(var + eps):
//   dbias = sum(dy), dweight = r sum(dy (x - mean)),
//   dx = w r (dy - dbias / n - (x - mean) r dweight / n).
// mean and var are x's statistics (native_batch_norm's outputs). The mean
// only centers the sums: the first pass also sums x - mean, whose average is
// what a mean rounded to x's dtype is off by (5e-4 for float32 values around
// 1e4), and the formula then uses x's exact mean.
// With Relu (native_batch_norm_relu_backward: inputs grad_output, input,
// mean, var, output[, weight]) dy is masked by relu's rule on the output as
// both passes read it: the values native_batch_norm_backward computes from
// threshold_backward(dy, output, 0), without that pass and its tensor.
template <bool Relu>
void native_batch_norm_backward_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const bool planar = planar_input(in[1]);
  const Tensor x = to_layout(in[1], planar);
  const Tensor dy = to_layout(in[0], planar);
  const Tensor y = Relu ? to_layout(in[4], planar) : Tensor();
  const std::size_t weight_at = Relu ? 5 : 4;
  const Geometry g = geometry_of(x, planar);
  if constexpr (Relu) {
    // Small planes (ResNet-18's 4x4 and 2x2 layers at 64x64 images) run the
    // loops' scalar remainders, where reading the mask costs more than the
    // pass it saves (1.05x the unfused time on 4x4, 1.25-1.5x on 2x2): mask
    // dy in one vectorized pass over the whole tensor, then the plain kernel.
    if (g.planar && g.inner < 32) {
      Tensor masked = make_empty(dy.sizes(), dy.dtype(), dy.device(), MemoryFormat::Contiguous);
      visit_float(dy.dtype(), "native_batch_norm_relu_backward", [&]<class T>() {
        const GradIn<T, true> m{dy.data_ptr<T>(), y.data_ptr<T>()};
        T* __restrict q = masked.data_ptr<T>();
        const int64_t total = dy.numel();
        parallel_for(0, total, kParallelGrain, [&](int64_t i0, int64_t i1) {
          for (int64_t i = i0; i < i1; ++i) q[i] = m[i];
        });
      });
      TensorList plain{masked, x, in[2], in[3]};
      if (in.size() > weight_at) plain.push_back(in[weight_at]);
      return native_batch_norm_backward_kernel<false>(Inputs(plain.data(), plain.size()), a, out);
    }
  }
  const int64_t C = g.channels;
  const double n = static_cast<double>(g.count());
  const std::vector<double> given_mean = channel_values(in[2], C, 0.0), var = channel_values(in[3], C, 0.0);
  const std::vector<double> w = channel_values(in.size() > weight_at ? in[weight_at] : Tensor(), C, 1.0);
  visit_float(x.dtype(), Relu ? "native_batch_norm_relu_backward" : "native_batch_norm_backward", [&]<class T>() {
    std::vector<T> hi(static_cast<std::size_t>(C)), lo(hi.size());
    for (std::size_t c = 0; c < hi.size(); ++c) hi[c] = static_cast<T>(given_mean[c]);
    const T *px = x.data_ptr<T>(), *h = hi.data();
    const GradIn<T, Relu> pdy{dy.data_ptr<T>(), Relu ? y.data_ptr<T>() : nullptr};
    // Per channel: sum(dy), sum(dy (x - hi)), sum(x - hi).
    const Sums<3> s = channel_sums<3>(g, [px, pdy, h](int64_t c, int64_t i) {
      const double d = static_cast<double>(pdy[i]), xc = static_cast<double>(px[i] - h[c]);
      return std::array<double, 3>{d, d * xc, xc};
    });
    std::vector<T> ka(hi.size()), kk(hi.size()), kd(hi.size());
    T* dw = out[1].data_ptr<T>();
    T* db = out[2].data_ptr<T>();
    for (std::size_t c = 0; c < hi.size(); ++c) {
      const double offset = n > 0 ? s[c][2] / n : 0.0;  // x's exact mean - hi
      lo[c] = static_cast<T>(offset);
      const double sum_dy = s[c][0], sum_dyx = s[c][1] - offset * sum_dy;  // sum(dy (x - mean))
      const double r = 1.0 / std::sqrt(var[c] + a.f(0)), sc = w[c] * r;
      ka[c] = static_cast<T>(sc);
      kk[c] = static_cast<T>(-sc * r * r * sum_dyx / n);
      kd[c] = static_cast<T>(-sc * sum_dy / n);
      dw[c] = static_cast<T>(sum_dyx * r);
      db[c] = static_cast<T>(sum_dy);
    }
    write_in_layout(out[0], planar, [&](Tensor& dx) {
      channel_map(g, BackwardMap<T, Relu>{pdy, px, dx.data_ptr<T>(), h, lo.data(), ka.data(), kk.data(), kd.data()});
    });
  });
}

// inputs: input, center, scale, shift. y = (x - center[c]) * scale[c] + shift[c].
void channel_affine_kernel(Inputs in, const Attrs&, std::span<Tensor> out) {
  const bool planar = planar_input(in[0]);
  const Tensor x = to_layout(in[0], planar);
  const Geometry g = geometry_of(x, planar);
  const int64_t C = g.channels;
  const std::vector<double> center = channel_values(in[1], C, 0.0);
  visit_float(x.dtype(), "channel_affine", [&]<class T>() {
    std::vector<T> hi(static_cast<std::size_t>(C)), lo(hi.size(), T(0));
    for (std::size_t c = 0; c < hi.size(); ++c) hi[c] = static_cast<T>(center[c]);
    const std::vector<T> scale = as<T>(channel_values(in[2], C, 1.0)), shift = as<T>(channel_values(in[3], C, 0.0));
    write_in_layout(out[0], planar, [&](Tensor& y) {
      channel_map(g, AffineMap<T>{x.data_ptr<T>(), y.data_ptr<T>(), hi.data(), lo.data(), scale.data(), shift.data()});
    });
  });
}

const KernelRegistrar kBatchNormKernels{DeviceType::CPU, {
    {native_batch_norm_op, native_batch_norm_kernel<false>},
    {native_batch_norm_backward_op, native_batch_norm_backward_kernel<false>},
    {native_batch_norm_relu_op, native_batch_norm_kernel<true>},
    {native_batch_norm_relu_backward_op, native_batch_norm_backward_kernel<true>},
    {channel_affine_op, channel_affine_kernel},
}};

}  // namespace
}  // namespace cpu
}  // namespace nabla

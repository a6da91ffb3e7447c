// CPU kernels of cross_entropy (index targets), nll_loss and
// binary_cross_entropy. Shapes, dtypes and the reduction string were checked
// by the ops' inference; what only the data can tell (class indices in range,
// probabilities in [0, 1]) is checked here, serially and before any parallel
// work, so the error names the first bad element whatever the thread count.
#include "nabla/kernels/cpu/loss.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <vector>

#include "nabla/core/parallel.h"
#include "nabla/kernels/cpu/elementwise.h"

namespace nabla::cpu {
namespace {

enum class Reduction { None, Mean, Sum };
Reduction reduction_of(const std::string& s) {
  return s == "none" ? Reduction::None : s == "sum" ? Reduction::Sum : Reduction::Mean;
}

// input [N, C, d...] as samples (n, j) with j over the flattened d...: the
// classes of sample s start at base(s) and are `inner` elements apart.
struct ClassRows {
  int64_t samples = 0, classes = 0, inner = 1;
  explicit ClassRows(const Tensor& x) {
    classes = x.sizes()[1];
    for (int64_t d = 2; d < x.dim(); ++d) inner *= x.sizes()[d];
    samples = x.sizes()[0] * inner;
  }
  int64_t base(int64_t s) const { return (s / inner) * classes * inner + s % inner; }
};

void check_targets(const char* loss, const int64_t* t, int64_t n, int64_t classes, int64_t ignore_index) {
  for (int64_t i = 0; i < n; ++i)
    if (t[i] != ignore_index && (t[i] < 0 || t[i] >= classes))
      fail(loss, ": target ", t[i], " at position ", i, " is out of bounds: expected a class index in [0, ",
           classes - 1, "] or ignore_index (", ignore_index, ")");
}

// Runs sample(s, loss, weight) for every sample and writes the per-sample
// losses (reduction "none") or their sum / weighted mean to out. Partial sums
// go over fixed blocks of samples, added in order: deterministic results.
template <class T, class SampleFn>
void reduce_samples(int64_t samples, int64_t classes, Reduction red, const Tensor& out, SampleFn sample) {
  int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(classes, 1));
  T* o = static_cast<T*>(out.raw_data());
  if (red == Reduction::None) {
    parallel_for(0, samples, grain, [&](int64_t b, int64_t e) {
      for (int64_t s = b; s < e; ++s) {
        double l, w;
        sample(s, l, w);
        o[s] = static_cast<T>(l);
      }
    });
    return;
  }
  constexpr int64_t kBlock = 256;
  int64_t blocks = (samples + kBlock - 1) / kBlock;
  std::vector<double> loss_part(static_cast<std::size_t>(blocks)), weight_part(static_cast<std::size_t>(blocks));
  parallel_for(0, blocks, std::max<int64_t>(1, grain / kBlock), [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      double ls = 0, ws = 0;
      for (int64_t s = k * kBlock, end = std::min(samples, s + kBlock); s < end; ++s) {
        double l, w;
        sample(s, l, w);
        ls += l;
        ws += w;
      }
      loss_part[k] = ls;
      weight_part[k] = ws;
    }
  });
  double loss = 0, weight = 0;
  for (int64_t k = 0; k < blocks; ++k) {
    loss += loss_part[k];
    weight += weight_part[k];
  }
  // An all-ignored batch gives 0/0 = nan under "mean", as in PyTorch.
  o[0] = static_cast<T>(red == Reduction::Sum ? loss : loss / weight);
}

template <class Fn>
void visit_float(DType t, Fn&& fn) {
  if (t == kFloat64) fn.template operator()<double>();
  else fn.template operator()<float>();
}

}  // namespace

void cross_entropy_kernel(std::span<const Tensor> in, const Attrs& a, std::span<Tensor> out) {
  Tensor x = contiguous_input(in[0]), target = contiguous_input(in[1]);
  Tensor weight = in.size() > 2 ? contiguous_input(in[2]) : Tensor();
  const int64_t ignore_index = a.i(0);
  const double smoothing = a.f(1);
  ClassRows r(x);
  const int64_t* t = static_cast<const int64_t*>(target.raw_data());
  check_targets("cross_entropy", t, r.samples, r.classes, ignore_index);
  visit_float(x.dtype(), [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    const T* pw = weight.defined() ? static_cast<const T*>(weight.raw_data()) : nullptr;
    const int64_t C = r.classes, stride = r.inner;
    reduce_samples<T>(r.samples, C, reduction_of(a.str(2)), out[0], [&](int64_t s, double& loss, double& w) {
      loss = w = 0;
      if (t[s] == ignore_index) return;
      const T* row = px + r.base(s);
      // log-sum-exp with the row max subtracted: exp never sees a positive argument.
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t c = 0; c < C; ++c) m = std::max(m, static_cast<double>(row[c * stride]));
      double se = 0;
      for (int64_t c = 0; c < C; ++c) se += std::exp(static_cast<double>(row[c * stride]) - m);
      const double lse = m + std::log(se);
      w = pw ? static_cast<double>(pw[t[s]]) : 1.0;
      loss = -(static_cast<double>(row[t[s] * stride]) - lse) * w * (1.0 - smoothing);
      if (smoothing > 0) {
        double all = 0;  // sum_c weight[c] * log p_c
        for (int64_t c = 0; c < C; ++c)
          all += (pw ? static_cast<double>(pw[c]) : 1.0) * (static_cast<double>(row[c * stride]) - lse);
        loss -= all * smoothing / static_cast<double>(C);
      }
    });
  });
}

void nll_loss_kernel(std::span<const Tensor> in, const Attrs& a, std::span<Tensor> out) {
  Tensor x = contiguous_input(in[0]), target = contiguous_input(in[1]);
  Tensor weight = in.size() > 2 ? contiguous_input(in[2]) : Tensor();
  const int64_t ignore_index = a.i(0);
  ClassRows r(x);
  const int64_t* t = static_cast<const int64_t*>(target.raw_data());
  check_targets("nll_loss", t, r.samples, r.classes, ignore_index);
  visit_float(x.dtype(), [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    const T* pw = weight.defined() ? static_cast<const T*>(weight.raw_data()) : nullptr;
    reduce_samples<T>(r.samples, 1, reduction_of(a.str(1)), out[0], [&](int64_t s, double& loss, double& w) {
      loss = w = 0;
      if (t[s] == ignore_index) return;
      w = pw ? static_cast<double>(pw[t[s]]) : 1.0;
      loss = -w * static_cast<double>(px[r.base(s) + t[s] * r.inner]);
    });
  });
}

void binary_cross_entropy_kernel(std::span<const Tensor> in, const Attrs& a, std::span<Tensor> out) {
  const Tensor& x = in[0];
  Reduction red = reduction_of(a.str(0));
  Tensor elems = red == Reduction::None ? out[0] : make_empty(x.sizes(), x.dtype(), x.device());
  std::atomic<bool> out_of_range{false};
  visit_float(x.dtype(), [&]<class T>() {
    // -(t log x + (1 - t) log(1 - x)), each log clamped to >= -100 so that
    // x = 0 or 1 gives a finite loss (PyTorch's convention).
    auto bce = [&](T p, T t) -> T {
      if (!(p >= T(0) && p <= T(1))) {
        out_of_range.store(true, std::memory_order_relaxed);
        return std::numeric_limits<T>::quiet_NaN();
      }
      T log_p = std::max(std::log(p), T(-100)), log_q = std::max(std::log1p(-p), T(-100));
      return -(t * log_p + (T(1) - t) * log_q);
    };
    if (in.size() > 2) {
      map3<T, T, T>(elems, x, in[1], in[2], [&](T p, T t, T w) { return w * bce(p, t); });
    } else {
      map2<T, T>(elems, x, in[1], bce);
    }
    if (out_of_range.load()) {
      Tensor xs = contiguous_input(x);
      const T* p = static_cast<const T*>(xs.raw_data());
      for (int64_t i = 0; i < xs.numel(); ++i)
        if (!(p[i] >= T(0) && p[i] <= T(1)))
          fail("binary_cross_entropy: all elements of input should be probabilities in [0, 1], got ",
               static_cast<double>(p[i]), " at position ", i, "; apply sigmoid first or use "
               "binary_cross_entropy_with_logits");
    }
    if (red == Reduction::None) return;
    const T* e = static_cast<const T*>(elems.raw_data());
    const int64_t n = elems.numel();
    reduce_samples<T>(n, 1, red, out[0], [&](int64_t s, double& loss, double& w) {
      loss = static_cast<double>(e[s]);
      w = 1.0;
    });
  });
}

}  // namespace nabla::cpu

#include "nabla/kernels/cpu/reduce.h"

#include <algorithm>
#include <cmath>
#include <vector>
#include <limits>

#include "nabla/core/memory_format.h"
#include "nabla/core/parallel.h"
#include "nabla/kernels/cpu/elementwise.h"

namespace nabla::cpu {
namespace {

// A contiguous copy of x with its dims in the order `perm`.
Tensor permuted_copy(const Tensor& x, const Shape& perm) {
  Shape s, st;
  for (int64_t d : perm) {
    s.push_back(x.sizes()[d]);
    st.push_back(x.strides()[d]);
  }
  Tensor view = make_view(x, s, st, x.storage_offset());
  if (view.is_contiguous()) return view;
  Tensor out = make_empty(s, x.dtype(), x.device());
  const Tensor src[1] = {view};
  Tensor dst[1] = {out};
  cast_kernel(src, {}, dst);
  return out;
}

// x permuted to [kept..., reduced...] and made contiguous.
Tensor rows_layout(const Tensor& x, const Shape& dims) {
  Shape perm;
  std::vector<bool> red(static_cast<std::size_t>(x.dim()));
  for (int64_t d : dims) red[d] = true;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (!red[d]) perm.push_back(d);
  for (int64_t d : dims) perm.push_back(d);
  return permuted_copy(x, perm);
}

// float16/bfloat16 (sum's kernel takes them: kNativeReducedFloat) are
// widened as they are read and computed exactly as the float32 kernel
// computes the widened tensor in the same memory layout: float32 lanes, a
// float64 total, the result rounded to float32 and then to the reduced type
// (the float32 fallback's rounding back). One pass instead of three: a
// bfloat16 conv bias gradient's sum over [64, 32, 28, 28] took 0.34 ms
// through float32. (The fallback widened a channels-last tensor into NCHW,
// so there its sums ran in another order.)
template <class T>
inline constexpr bool kReduced = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <class T>
using Widened = std::conditional_t<kReduced<T>, float, T>;
template <class O, class Acc>
O to_output(Acc v) {
  if constexpr (kReduced<O>) return O(static_cast<float>(v));
  else return static_cast<O>(v);
}

template <class T, class Acc>
Acc reduce_row(const T* p, int64_t n, ReduceKind kind) {
  switch (kind) {
    case ReduceKind::Sum: {
      // 16 independent lanes vectorize; blocks bound the float rounding error.
      // Lanes in T for floats (vectorizes; float32 for float16/bfloat16), in
      // Acc for integers and bool (a bool or uint8 lane would wrap).
      using Lane = std::conditional_t<std::is_floating_point_v<Widened<T>>, Widened<T>, Acc>;
      Acc total = 0;
      constexpr int64_t kBlock = 4096;
      for (int64_t b = 0; b < n; b += kBlock) {
        int64_t e = std::min(n, b + kBlock);
        Lane lanes[16] = {};
        int64_t i = b;
        for (; i + 16 <= e; i += 16)
          for (int j = 0; j < 16; ++j) lanes[j] += static_cast<Lane>(p[i + j]);
        Lane part = 0;
        for (; i < e; ++i) part += static_cast<Lane>(p[i]);
        for (int j = 0; j < 16; ++j) part += lanes[j];
        total += static_cast<Acc>(part);
      }
      return total;
    }
    case ReduceKind::Prod: {
      Acc r = 1;
      for (int64_t i = 0; i < n; ++i) r *= static_cast<Acc>(static_cast<Widened<T>>(p[i]));
      return r;
    }
    case ReduceKind::Max:
    case ReduceKind::Min: {
      Acc r = static_cast<Acc>(static_cast<Widened<T>>(p[0]));
      for (int64_t i = 1; i < n; ++i) {
        Acc v = static_cast<Acc>(static_cast<Widened<T>>(p[i]));
        if constexpr (std::is_floating_point_v<Acc>) {
          if (std::isnan(v) || std::isnan(r)) { r = std::numeric_limits<Acc>::quiet_NaN(); continue; }
        }
        r = kind == ReduceKind::Max ? (v > r ? v : r) : (v < r ? v : r);
      }
      return r;
    }
    case ReduceKind::All: {
      for (int64_t i = 0; i < n; ++i)
        if (static_cast<Widened<T>>(p[i]) == Widened<T>(0)) return 0;
      return 1;
    }
    case ReduceKind::Any: {
      for (int64_t i = 0; i < n; ++i)
        if (static_cast<Widened<T>>(p[i]) != Widened<T>(0)) return 1;
      return 0;
    }
  }
  return 0;
}

}  // namespace

void reduce(const Tensor& x, const Shape& dims, ReduceKind kind, const Tensor& out) {
  int64_t inner = 1;
  for (int64_t d : dims) inner *= x.sizes()[d];
  int64_t outer = out.numel();
  bool reduce_leading = x.is_contiguous() && kind == ReduceKind::Sum && !dims.empty() && dims.back() == static_cast<int64_t>(dims.size()) - 1 && outer > 1;
  // A channels-last x summed over N, H, W (batch norm's statistics, a conv
  // bias gradient): in memory those are its leading dims, the same rows.
  reduce_leading |= kind == ReduceKind::Sum && x.dim() == 4 && dims == Shape{0, 2, 3} && outer > 1 &&
                    !x.is_contiguous() && is_contiguous(x, MemoryFormat::ChannelsLast);
  // A channels-last x summed over H, W (a conv bias gradient's first step in
  // a compiled graph): per sample, the sum of its H*W rows of C values.
  const bool nhwc_planes = kind == ReduceKind::Sum && x.dim() == 4 && dims == Shape{2, 3} &&
                           !x.is_contiguous() && is_contiguous(x, MemoryFormat::ChannelsLast);
  visit_dtype(x.dtype(), [&]<class T>() {
    using Acc = std::conditional_t<std::is_floating_point_v<Widened<T>>, double, int64_t>;
    visit_dtype(out.dtype(), [&]<class O>() {
      O* o = static_cast<O*>(out.raw_data());
      if constexpr (!std::is_same_v<T, bool>) if (reduce_leading) {
        // Sum over leading dims (in memory) of a dense tensor: accumulate rows.
        const T* p = static_cast<const T*>(x.raw_data());
        parallel_for(0, outer, 4096, [&](int64_t b, int64_t e) {
          std::vector<Acc> acc(static_cast<std::size_t>(e - b), Acc(0));
          for (int64_t r = 0; r < inner; ++r) {
            const T* row = p + r * outer;
            for (int64_t j = b; j < e; ++j) acc[j - b] += static_cast<Widened<T>>(row[j]);
          }
          for (int64_t j = b; j < e; ++j) o[j] = to_output<O>(acc[j - b]);
        });
        return;
      }
      if constexpr (!std::is_same_v<T, bool>) if (nhwc_planes) {
        const T* p = static_cast<const T*>(x.raw_data());
        const int64_t channels = x.sizes()[1], samples = x.sizes()[0];
        parallel_for(0, samples, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(inner * channels, 1)),
                     [&](int64_t b, int64_t e) {
                       std::vector<Acc> acc(static_cast<std::size_t>(channels));
                       for (int64_t n = b; n < e; ++n) {
                         std::fill(acc.begin(), acc.end(), Acc(0));
                         for (int64_t r = 0; r < inner; ++r) {
                           const T* row = p + (n * inner + r) * channels;
                           for (int64_t c = 0; c < channels; ++c) acc[c] += static_cast<Widened<T>>(row[c]);
                         }
                         for (int64_t c = 0; c < channels; ++c) o[n * channels + c] = to_output<O>(acc[c]);
                       }
                     });
        return;
      }
      Tensor rows = rows_layout(x, dims);
      const T* p = static_cast<const T*>(rows.raw_data());
      int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(inner, 1));
      parallel_for(0, outer, grain, [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) o[r] = to_output<O>(reduce_row<T, Acc>(p + r * inner, inner, kind));
      });
    });
  });
}

void arg_reduce(const Tensor& x, int64_t dim, bool is_max, const Tensor& values, const Tensor& indices) {
  Shape dims{dim};
  Tensor rows = rows_layout(x, dims);
  int64_t inner = x.sizes()[dim], outer = values.numel();
  visit_dtype(x.dtype(), [&]<class T>() {
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      fail("arg_reduce: reduced float reached a float32 kernel");
    } else {
      const T* p = static_cast<const T*>(rows.raw_data());
      T* v = static_cast<T*>(values.raw_data());
      int64_t* ix = static_cast<int64_t*>(indices.raw_data());
      for (int64_t r = 0; r < outer; ++r) {
        const T* row = p + r * inner;
        int64_t best = 0;
        for (int64_t i = 1; i < inner; ++i) {
          if constexpr (std::is_floating_point_v<T>) {
            if (std::isnan(row[best])) break;
            if (std::isnan(row[i])) { best = i; break; }
          }
          if (is_max ? row[i] > row[best] : row[i] < row[best]) best = i;
        }
        v[r] = row[best];
        ix[r] = best;
      }
    }
  });
}

void scan(const Tensor& x, int64_t dim, bool is_prod, const Tensor& out) {
  // Move dim last, scan contiguous rows, and write back through a permuted view.
  int64_t n = x.dim();
  Shape perm;
  for (int64_t d = 0; d < n; ++d)
    if (d != dim) perm.push_back(d);
  perm.push_back(dim);
  Tensor rows = permuted_copy(x, perm);
  Tensor result = make_empty(rows.sizes(), rows.dtype(), rows.device());
  int64_t inner = n == 0 ? 1 : x.sizes()[dim];
  int64_t outer = inner == 0 ? 0 : rows.numel() / inner;
  visit_dtype(x.dtype(), [&]<class T>() {
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16> || std::is_same_v<T, bool>) {
      fail("scan: unsupported dtype");
    } else {
      const T* p = static_cast<const T*>(rows.raw_data());
      T* o = static_cast<T*>(result.raw_data());
      for (int64_t r = 0; r < outer; ++r) {
        T acc = is_prod ? T(1) : T(0);
        for (int64_t i = 0; i < inner; ++i) {
          acc = is_prod ? static_cast<T>(acc * p[r * inner + i]) : static_cast<T>(acc + p[r * inner + i]);
          o[r * inner + i] = acc;
        }
      }
    }
  });
  Shape inv(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<int64_t>(i);
  Shape bs, bst;
  for (int64_t d : inv) {
    bs.push_back(result.sizes()[d]);
    bst.push_back(result.strides()[d]);
  }
  Tensor back = make_view(result, bs, bst, 0);
  const Tensor src[1] = {back};
  Tensor dst[1] = {out};
  cast_kernel(src, {}, dst);
}

}  // namespace nabla::cpu

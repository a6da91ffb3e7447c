// The CPU elementwise loop engine (PyTorch's TensorIterator, in small): maps a
// scalar functor over operands broadcast to the output's shape, for any
// strides. Adjacent dims are merged when the memory allows it, so contiguous
// and scalar-broadcast operands run as flat loops the compiler vectorizes;
// ranges above kParallelGrain are split across the thread pool.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>

#include "nabla/core/parallel.h"
#include "nabla/core/tensor.h"

namespace nabla::cpu {

template <int N>  // N operands, output first
struct StridedLayout {
  int ndim = 0;
  std::array<int64_t, 16> sizes;                     // only [0, ndim) is set
  std::array<std::array<int64_t, 16>, N> strides;    // in elements
};

// True when every operand is contiguous with the output's shape: the loop is
// then one flat pass with no layout to compute (the common case, and the one
// that decides the per-op overhead of small tensors).
template <class... T>
inline bool all_same_contiguous(const Tensor& out, const T&... ins) {
  return out.is_contiguous() && ((ins.sizes() == out.sizes() && ins.is_contiguous()) && ...);
}

// Broadcast strides of t against `shape` (0 where t has size 1 or lacks the dim).
inline void broadcast_strides(const Tensor& t, const Shape& shape, int64_t* out) {
  int64_t nd = static_cast<int64_t>(shape.size()), td = t.dim();
  for (int64_t d = 0; d < nd; ++d) {
    int64_t td_i = d - (nd - td);
    out[d] = (td_i < 0 || t.sizes()[td_i] == 1) ? 0 : t.strides()[td_i];
  }
}

template <int N>
StridedLayout<N> make_layout(const Shape& shape, const std::array<const Tensor*, N>& ops) {
  NABLA_CHECK(shape.size() <= 16, "elementwise: tensors of more than 16 dims are not supported (got ", shape.size(), ")");
  int nd = static_cast<int>(shape.size());
  std::array<std::array<int64_t, 16>, N> st;
  for (int k = 0; k < N; ++k) broadcast_strides(*ops[k], shape, st[k].data());
  // Walk the dims in the output's memory order (slowest first, PyTorch's
  // TensorIterator does the same), so that a channels-last output (NHWC in
  // memory) with channels-last or broadcast [C, 1, 1] operands merges into
  // stride-1 runs instead of looping with stride C. Row-major outputs keep
  // the logical order.
  std::array<int, 16> order;
  for (int d = 0; d < nd; ++d) order[d] = d;
  bool row_major = true;
  for (int d = 1; d < nd; ++d) row_major &= shape[d] == 1 || st[0][d] <= st[0][d - 1] || shape[d - 1] == 1;
  if (!row_major)
    std::stable_sort(order.begin(), order.begin() + nd, [&](int a, int b) { return st[0][a] > st[0][b]; });
  // Drop size-1 dims and merge dims that are contiguous for every operand.
  StridedLayout<N> l;
  for (int o = 0; o < nd; ++o) {
    const int d = order[o];
    if (shape[d] == 1) continue;
    if (l.ndim > 0) {
      bool merge = true;
      for (int k = 0; k < N; ++k) merge &= l.strides[k][l.ndim - 1] == st[k][d] * shape[d];
      if (merge) {
        l.sizes[l.ndim - 1] *= shape[d];
        for (int k = 0; k < N; ++k) l.strides[k][l.ndim - 1] = st[k][d];
        continue;
      }
    }
    l.sizes[l.ndim] = shape[d];
    for (int k = 0; k < N; ++k) l.strides[k][l.ndim] = st[k][d];
    l.ndim++;
  }
  if (l.ndim == 0) {  // a single element
    l.ndim = 1;
    l.sizes[0] = 1;
    for (int k = 0; k < N; ++k) l.strides[k][0] = 1;
  }
  return l;
}

// Applies `row(ptrs, strides_of_last_dim, count)` to every run of the last
// dim within the linear element range [begin, end).
template <int N, class Row>
void for_each_row(const StridedLayout<N>& l, std::array<char*, N> base, const std::array<int64_t, N>& elem_size,
                  int64_t begin, int64_t end, Row&& row) {
  int last = l.ndim - 1;
  std::array<int64_t, 16> idx;
  int64_t rem = begin;
  for (int d = last; d >= 0; --d) {
    idx[d] = rem % l.sizes[d];
    rem /= l.sizes[d];
  }
  std::array<int64_t, N> inner{};
  for (int k = 0; k < N; ++k) inner[k] = l.strides[k][last];
  int64_t pos = begin;
  while (pos < end) {
    std::array<char*, N> p;
    for (int k = 0; k < N; ++k) {
      int64_t off = 0;
      for (int d = 0; d <= last; ++d) off += idx[d] * l.strides[k][d];
      p[k] = base[k] + off * elem_size[k];
    }
    int64_t count = std::min(l.sizes[last] - idx[last], end - pos);
    row(p, inner, count);
    pos += count;
    idx[last] += count;
    for (int d = last; d > 0 && idx[d] >= l.sizes[d]; --d) {
      idx[d] = 0;
      idx[d - 1]++;
    }
  }
}

// out[i] = f(a[i]) with Out/In element types.
template <class Out, class In, class F>
void map1(const Tensor& out, const Tensor& a, F f) {
  if (all_same_contiguous(out, a)) {
    Out* o = static_cast<Out*>(out.raw_data());
    const In* x = static_cast<const In*>(a.raw_data());
    parallel_for(0, out.numel(), kParallelGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) o[i] = f(x[i]);
    });
    return;
  }
  auto l = make_layout<2>(out.sizes(), {&out, &a});
  std::array<char*, 2> base{static_cast<char*>(out.raw_data()), static_cast<char*>(a.raw_data())};
  parallel_for(0, out.numel(), kParallelGrain, [&](int64_t b, int64_t e) {
    for_each_row<2>(l, base, {sizeof(Out), sizeof(In)}, b, e, [&](auto p, auto s, int64_t n) {
      Out* o = reinterpret_cast<Out*>(p[0]);
      const In* x = reinterpret_cast<const In*>(p[1]);
      if (s[0] == 1 && s[1] == 1) {
        for (int64_t i = 0; i < n; ++i) o[i] = f(x[i]);
      } else if (s[0] == 1 && s[1] == 0) {
        // A broadcast scalar: fill_ and zero_ (a copy from a 0-dim tensor),
        // expand().contiguous(). Without this case the stride arithmetic
        // kept the loop scalar: zeroing the seed MLP's 100x1000 gradient
        // was 12% of the raw-autograd step.
        const Out v = f(*x);
        for (int64_t i = 0; i < n; ++i) o[i] = v;
      } else {
        for (int64_t i = 0; i < n; ++i) o[i * s[0]] = f(x[i * s[1]]);
      }
    });
  });
}

// out[i] = f(a[i], b[i]) with broadcasting.
template <class Out, class In, class F>
void map2(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  if (all_same_contiguous(out, a, b)) {
    Out* o = static_cast<Out*>(out.raw_data());
    const In* x = static_cast<const In*>(a.raw_data());
    const In* y = static_cast<const In*>(b.raw_data());
    parallel_for(0, out.numel(), kParallelGrain, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) o[i] = f(x[i], y[i]);
    });
    return;
  }
  auto l = make_layout<3>(out.sizes(), {&out, &a, &b});
  std::array<char*, 3> base{static_cast<char*>(out.raw_data()), static_cast<char*>(a.raw_data()),
                            static_cast<char*>(b.raw_data())};
  parallel_for(0, out.numel(), kParallelGrain, [&](int64_t lo, int64_t hi) {
    for_each_row<3>(l, base, {sizeof(Out), sizeof(In), sizeof(In)}, lo, hi, [&](auto p, auto s, int64_t n) {
      Out* o = reinterpret_cast<Out*>(p[0]);
      const In* x = reinterpret_cast<const In*>(p[1]);
      const In* y = reinterpret_cast<const In*>(p[2]);
      if (s[0] == 1 && s[1] == 1 && s[2] == 1) {
        for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
      } else if (s[0] == 1 && s[1] == 1 && s[2] == 0) {
        const In yv = *y;
        for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], yv);
      } else if (s[0] == 1 && s[1] == 0 && s[2] == 1) {
        const In xv = *x;
        for (int64_t i = 0; i < n; ++i) o[i] = f(xv, y[i]);
      } else {
        for (int64_t i = 0; i < n; ++i) o[i * s[0]] = f(x[i * s[1]], y[i * s[2]]);
      }
    });
  });
}

// out[i] = f(c[i], a[i], b[i]) with broadcasting (where, clamp with tensors, lerp).
template <class Out, class C, class In, class F>
void map3(const Tensor& out, const Tensor& c, const Tensor& a, const Tensor& b, F f) {
  auto l = make_layout<4>(out.sizes(), {&out, &c, &a, &b});
  std::array<char*, 4> base{static_cast<char*>(out.raw_data()), static_cast<char*>(c.raw_data()),
                            static_cast<char*>(a.raw_data()), static_cast<char*>(b.raw_data())};
  parallel_for(0, out.numel(), kParallelGrain, [&](int64_t lo, int64_t hi) {
    for_each_row<4>(l, base, {sizeof(Out), sizeof(C), sizeof(In), sizeof(In)}, lo, hi,
                    [&](auto p, auto s, int64_t n) {
                      Out* o = reinterpret_cast<Out*>(p[0]);
                      const C* z = reinterpret_cast<const C*>(p[1]);
                      const In* x = reinterpret_cast<const In*>(p[2]);
                      const In* y = reinterpret_cast<const In*>(p[3]);
                      // Unit strides, and one operand a scalar (a 0-dim or broadcast
                      // value: dropout's, clamp's and leaky_relu's gradients), get loops
                      // without stride arithmetic, which the compiler vectorizes.
                      if (s[0] == 1 && s[1] == 1 && s[2] == 1 && s[3] == 1) {
                        for (int64_t i = 0; i < n; ++i) o[i] = f(z[i], x[i], y[i]);
                      } else if (s[0] == 1 && s[1] == 1 && s[2] == 1 && s[3] == 0) {
                        const In yv = *y;
                        for (int64_t i = 0; i < n; ++i) o[i] = f(z[i], x[i], yv);
                      } else if (s[0] == 1 && s[1] == 1 && s[2] == 0 && s[3] == 1) {
                        const In xv = *x;
                        for (int64_t i = 0; i < n; ++i) o[i] = f(z[i], xv, y[i]);
                      } else {
                        for (int64_t i = 0; i < n; ++i) o[i * s[0]] = f(z[i * s[1]], x[i * s[2]], y[i * s[3]]);
                      }
                    });
  });
}

}  // namespace nabla::cpu

// CPU kernels for the elementwise ops: each op's scalar functor (beside its
// registration, kernels/cpu/{unary,binary,compare}_ops.cpp) goes through these,
// which pick the C++ type.
#pragma once
#include <type_traits>

#include "nabla/kernels/cpu/loops.h"
#include "nabla/ops/attrs.h"

namespace nabla::cpu {

// float16/bfloat16: storage only. The kernels below compute them in float32
// and round each result once, as dispatch's float32 fallback does, but in
// one pass (the ops whose kernels are these and that are marked
// kNativeReducedFloat: relu, add, sub, mul, the comparisons).
template <class T>
inline constexpr bool is_reduced_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// Float-only math (inputs were promoted to a floating dtype).
template <class F>
void unary_float(std::span<const Tensor> in, const Attrs& attrs, std::span<Tensor> out) {
  F f{attrs};
  if (out[0].dtype() == kFloat64) map1<double, double>(out[0], in[0], [&](double x) { return f(x); });
  else map1<float, float>(out[0], in[0], [&](float x) { return f(x); });
}

// Any numeric dtype; same dtype in and out.
template <class F>
void unary_same(std::span<const Tensor> in, const Attrs& attrs, std::span<Tensor> out) {
  F f{attrs};
  visit_dtype(out[0].dtype(), [&]<class T>() {
    if constexpr (is_reduced_v<T>) {
      map1<T, T>(out[0], in[0], [&](T x) { return T(f(static_cast<float>(x))); });
    } else {
      map1<T, T>(out[0], in[0], [&](T x) { return static_cast<T>(f(x)); });
    }
  });
}

// Any input dtype -> bool output.
template <class F>
void unary_predicate(std::span<const Tensor> in, const Attrs& attrs, std::span<Tensor> out) {
  F f{attrs};
  visit_dtype(in[0].dtype(), [&]<class T>() {
    if constexpr (is_reduced_v<T>) {
      map1<bool, T>(out[0], in[0], [&](T x) { return static_cast<bool>(f(static_cast<float>(x))); });
    } else {
      map1<bool, T>(out[0], in[0], [&](T x) { return static_cast<bool>(f(x)); });
    }
  });
}

template <class F>
void binary_same(std::span<const Tensor> in, const Attrs& attrs, std::span<Tensor> out) {
  F f{attrs};
  visit_dtype(out[0].dtype(), [&]<class T>() {
    if constexpr (is_reduced_v<T>) {
      map2<T, T>(out[0], in[0], in[1],
                 [&](T a, T b) { return T(f(static_cast<float>(a), static_cast<float>(b))); });
    } else {
      map2<T, T>(out[0], in[0], in[1], [&](T a, T b) { return static_cast<T>(f(a, b)); });
    }
  });
}

template <class F>
void binary_predicate(std::span<const Tensor> in, const Attrs& attrs, std::span<Tensor> out) {
  F f{attrs};
  visit_dtype(in[0].dtype(), [&]<class T>() {
    if constexpr (is_reduced_v<T>) {
      map2<bool, T>(out[0], in[0], in[1],
                    [&](T a, T b) { return static_cast<bool>(f(static_cast<float>(a), static_cast<float>(b))); });
    } else {
      map2<bool, T>(out[0], in[0], in[1], [&](T a, T b) { return static_cast<bool>(f(a, b)); });
    }
  });
}

// Copies `in` (any dtype, broadcast) into `out` (any dtype), converting.
void cast_kernel(std::span<const Tensor> in, const Attrs& attrs, std::span<Tensor> out);

// x itself when contiguous, else a contiguous copy (same dtype). Kernels that
// index memory by hand get strided inputs from the dispatcher and copy once.
inline Tensor contiguous_input(const Tensor& x) {
  if (x.is_contiguous()) return x;
  Tensor out = make_empty(x.sizes(), x.dtype(), x.device());
  const Tensor src[1] = {x};
  Tensor dst[1] = {out};
  cast_kernel(src, {}, dst);
  return out;
}

}  // namespace nabla::cpu

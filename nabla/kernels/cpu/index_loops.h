// Strided loops for the index-driven CPU kernels (gather, scatter, flip, sort,
// ...). cpu::map* apply a functor to values; these kernels instead need the
// memory offset of each element in several operands, each with its own strides
// (an operand may use a 0 stride to repeat, or a negative one to run
// backwards), so they walk the shape with an odometer and hand the callback one
// element offset per operand. The innermost dim runs as a plain loop.
#pragma once
#include <array>
#include <cstdint>
#include <cstring>

#include "nabla/core/tensor.h"

namespace nabla::cpu {

// Calls f(offsets) for every element of `sizes` in row-major order, where
// offsets[k] = sum_d idx[d] * strides[k][d] (in elements).
template <int N, class F>
void for_each_offset(const Shape& sizes, const std::array<const int64_t*, N>& strides, F&& f) {
  const int64_t nd = static_cast<int64_t>(sizes.size());
  for (int64_t s : sizes)
    if (s == 0) return;
  std::array<int64_t, N> off{};
  if (nd == 0) {
    f(off);
    return;
  }
  Shape idx(sizes.size(), 0);
  const int64_t last = nd - 1, n = sizes[last];
  std::array<int64_t, N> inner;
  for (int k = 0; k < N; ++k) inner[k] = strides[k][last];
  while (true) {
    std::array<int64_t, N> o = off;
    for (int64_t i = 0; i < n; ++i) {
      f(o);
      for (int k = 0; k < N; ++k) o[k] += inner[k];
    }
    int64_t d = last - 1;
    for (; d >= 0; --d) {
      for (int k = 0; k < N; ++k) off[k] += strides[k][d];
      if (++idx[d] < sizes[d]) break;
      for (int k = 0; k < N; ++k) off[k] -= strides[k][d] * sizes[d];
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

// Calls fn.template operator()<U>() with an unsigned type as wide as one
// element: kernels that only move elements (gather, flip, cat) then serve
// every dtype, float16/bfloat16 included, without converting.
template <class Fn>
decltype(auto) visit_item(std::size_t itemsize, Fn&& fn) {
  switch (itemsize) {
    case 1: return fn.template operator()<uint8_t>();
    case 2: return fn.template operator()<uint16_t>();
    case 4: return fn.template operator()<uint32_t>();
    default: break;
  }
  return fn.template operator()<uint64_t>();
}

}  // namespace nabla::cpu

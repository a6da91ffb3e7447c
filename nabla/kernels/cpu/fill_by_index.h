// A loop shared by the CPU kernels of the factory and random ops: element i
// of a fresh contiguous tensor is a function of i alone (a range's value, a
// Philox draw), so any thread count gives the same tensor.
#pragma once
#include <type_traits>

#include "nabla/core/parallel.h"
#include "nabla/core/tensor.h"
#include "nabla/kernels/cpu/float_to_integer.h"

namespace nabla::cpu {

// The value v stored as T, as nabla's factories have always stored it:
// bool is v != 0, integers truncate the double (float_to_integer: past their
// range as x86 converts), and floating types go through
// float (so float64 ranges and draws carry float32 precision; kept so that
// existing seeds give the same numbers).
template <class T>
T factory_value(double v) {
  if constexpr (std::is_same_v<T, bool>) return v != 0.0;
  else if constexpr (std::is_integral_v<T>) return float_to_integer<T>(v);  // no UB past T's range
  else return static_cast<T>(static_cast<float>(v));
}

// The contiguous `out` split across threads: fill(b, e, store) computes the
// elements of [b, e) and stores each with store(i, v), which writes
// factory_value(v) to out[i]. For kernels that make a range's values
// together (the random ops draw Philox blocks in tiles); fill is called from
// several threads.
template <class Fill>
void fill_by_range(const Tensor& out, Fill&& fill) {
  visit_dtype(out.dtype(), [&]<class T>() {
    T* p = static_cast<T*>(out.raw_data());
    parallel_for(0, out.numel(), kParallelGrain, [&](int64_t b, int64_t e) {
      fill(b, e, [p](int64_t i, double v) { p[i] = factory_value<T>(v); });
    });
  });
}

// out[i] = factory_value(fn(i)) for the contiguous `out`; fn is called from
// several threads.
template <class Fn>
void fill_by_index(const Tensor& out, Fn&& fn) {
  fill_by_range(out, [&](int64_t b, int64_t e, auto store) {
    for (int64_t i = b; i < e; ++i) store(i, fn(i));
  });
}

}  // namespace nabla::cpu

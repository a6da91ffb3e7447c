// Small helpers shared by the CPU kernels of the nn functional ops (softmax,
// dropout, embedding, pad, interpolate): these kernels index memory by hand,
// so they want contiguous operands and a float/double switch.
#pragma once
#include <type_traits>

#include "nabla/kernels/cpu/elementwise.h"

namespace nabla::cpu {


// Calls fn.template operator()<T>() with T = float or double. Reduced floats
// were widened to float32 by the dispatcher; anything else is a bug upstream.
template <class Fn>
void visit_float(DType t, const char* kernel, Fn&& fn) {
  if (t == kFloat64) fn.template operator()<double>();
  else if (t == kFloat32) fn.template operator()<float>();
  else fail(kernel, ": expected a float32/float64 tensor, got ", t);
}

}  // namespace nabla::cpu

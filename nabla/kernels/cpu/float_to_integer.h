// A floating value stored in an integer type as x86 converts it, without the
// undefined behaviour of a plain cast of NaN or an out-of-range value (an
// ONNX Cast or Range on a file's constants runs on import): 64-bit integers
// take INT64_MIN, the narrower ones go through int32 (INT32_MIN out of its
// range) and keep its low bits, as the accelerators' kernels store them.
// Values in range convert as a cast does (truncated toward zero).
#pragma once
#include <cstdint>
#include <limits>

#include "nabla/core/scalar.h"

namespace nabla::cpu {

template <class To>
To float_to_integer(double v) {
  if constexpr (sizeof(To) == 8) {
    return static_cast<To>(detail::to_int64_saturated(v));
  } else {
    const int32_t i = v >= -2147483648.0 && v < 2147483648.0 ? static_cast<int32_t>(v)
                                                             : std::numeric_limits<int32_t>::min();
    return static_cast<To>(i);
  }
}

}  // namespace nabla::cpu

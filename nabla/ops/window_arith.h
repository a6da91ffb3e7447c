// Sliding-window arithmetic of convolutions and pools on int64 attributes
// that may come from a file (a saved graph, an ONNX model) and be anywhere in
// int64's range: sums and products of two int64s cannot overflow 128 bits,
// so the sizes are computed there and narrowed back only when they fit.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "nabla/core/error.h"

namespace nabla::detail {

using WideInt = __int128;

inline std::string wide_text(WideInt v) {
  if (v >= std::numeric_limits<int64_t>::min() && v <= std::numeric_limits<int64_t>::max())
    return std::to_string(static_cast<int64_t>(v));
  return v < 0 ? "below -2^63" : "above 2^63 - 1";
}

// `v` as an int64, or an Error: "<op>: <what> is <v>, past the int64 range".
inline int64_t narrow_size(WideInt v, std::string_view op, std::string_view what) {
  NABLA_CHECK(v >= std::numeric_limits<int64_t>::min() && v <= std::numeric_limits<int64_t>::max(), op, ": ", what,
              " is ", wide_text(v), ", past the int64 range (are the stride, padding and dilation sensible?)");
  return static_cast<int64_t>(v);
}

}  // namespace nabla::detail

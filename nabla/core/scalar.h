// Scalar: a number given to an op (fill value, clamp bound, exponent) that
// remembers whether it was written as a bool, an integer or a floating value,
// which matters for type promotion (int tensor * 2 stays int, * 2.5 is float).
#pragma once
#include <cstdint>
#include <limits>
#include <ostream>
#include <type_traits>

#include "nabla/core/dtype.h"

namespace nabla {

namespace detail {
// double -> int64 as x86's conversion gives it (NaN and values out of range
// become INT64_MIN), without the undefined behaviour of a plain cast.
inline int64_t to_int64_saturated(double v) {
  if (v >= -9223372036854775808.0 && v < 9223372036854775808.0) return static_cast<int64_t>(v);
  return std::numeric_limits<int64_t>::min();
}
}  // namespace detail

class Scalar {
 public:
  Scalar() = default;
  Scalar(bool v) : kind_(DType::Bool), i_(v), d_(v) {}
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(DType::Int64), i_(static_cast<int64_t>(v)), d_(static_cast<double>(v)) {}
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v)
      : kind_(DType::Float64), i_(detail::to_int64_saturated(static_cast<double>(v))), d_(static_cast<double>(v)) {}

  double to_double() const { return d_; }
  int64_t to_int() const { return i_; }
  bool is_floating() const { return kind_ == DType::Float64; }
  bool is_integral() const { return kind_ == DType::Int64; }
  bool is_bool() const { return kind_ == DType::Bool; }
  // The widest dtype of its category (Bool, Int64, Float64).
  DType kind() const { return kind_; }
  template <class T>
  T to() const {
    if constexpr (std::is_floating_point_v<T>) return static_cast<T>(d_);
    else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) return T(static_cast<float>(d_));
    else if constexpr (std::is_same_v<T, bool>) return is_floating() ? d_ != 0.0 : i_ != 0;
    else return is_floating() ? static_cast<T>(d_) : static_cast<T>(i_);
  }
  friend std::ostream& operator<<(std::ostream& os, const Scalar& s) {
    if (s.is_floating()) return os << s.d_;
    if (s.is_bool()) return os << (s.i_ ? "true" : "false");
    return os << s.i_;
  }

 private:
  DType kind_ = DType::Int64;
  int64_t i_ = 0;
  double d_ = 0.0;
};

}  // namespace nabla

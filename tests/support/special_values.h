// NaN and infinity as doubles, for tests of edge values.
#pragma once
#include <limits>

namespace nabla::testing {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace nabla::testing

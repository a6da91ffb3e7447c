// max |a - b| over all elements, for tests comparing two tensors of one shape
// (a shape mismatch fails the test). Computed in double on the host.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "nabla/core/tensor.h"

namespace nabla::testing {

inline double max_abs_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.sizes(), b.sizes());
  auto x = a.to_vector<double>(), y = b.to_vector<double>();
  double m = 0;
  for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) m = std::max(m, std::abs(x[i] - y[i]));
  return m;
}

}  // namespace nabla::testing

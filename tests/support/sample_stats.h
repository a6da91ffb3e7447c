// Sample statistics of a tensor's elements, for tests of random
// initializations (mean/std within sampling tolerance, bounds).
#pragma once
#include <algorithm>
#include <cmath>

#include "nabla/core/tensor.h"

namespace nabla::testing {

struct SampleStats {
  double mean, std, min, max;
};

// Population mean and standard deviation, minimum and maximum.
inline SampleStats sample_stats(const Tensor& t) {
  auto v = t.to_vector<double>();
  double s = 0, s2 = 0;
  for (double x : v) s += x;
  double m = s / static_cast<double>(v.size());
  for (double x : v) s2 += (x - m) * (x - m);
  return {m, std::sqrt(s2 / static_cast<double>(v.size())), *std::min_element(v.begin(), v.end()),
          *std::max_element(v.begin(), v.end())};
}

}  // namespace nabla::testing

// A tensor's elements as doubles, for tests comparing them with expected lists.
#pragma once
#include <vector>

#include "nabla/core/tensor.h"

namespace nabla::testing {

inline std::vector<double> double_values(const Tensor& t) { return t.to(kFloat64).to_vector<double>(); }

}  // namespace nabla::testing

// Two tensors hold equal values, compared as doubles element by element (NaN
// equals nothing), for tests that expect exact reproduction.
#pragma once
#include "nabla/core/tensor.h"

namespace nabla::testing {

inline bool same_values(const Tensor& a, const Tensor& b) { return a.to_vector<double>() == b.to_vector<double>(); }

}  // namespace nabla::testing

// Small operands for the bad-input tests of ops, where only shapes and dtypes
// matter: zeros of a shape, and int64 index or class lists.
#pragma once
#include <initializer_list>

#include "nabla/nabla.h"

namespace nabla::testing {

inline Tensor zeros_of(IntList shape, DType dt = kFloat32) { return zeros(shape, dtype(dt)); }
inline Tensor int64_list(std::initializer_list<double> v) { return tensor(v, dtype(kInt64)); }

}  // namespace nabla::testing

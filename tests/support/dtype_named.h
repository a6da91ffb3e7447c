// The dtype a reference table names ("float32", "int64", ...), for tests
// driven by tables generated with PyTorch; an unknown name fails the test.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "nabla/core/dtype.h"

namespace nabla::testing {

inline DType dtype_named(const std::string& name) {
  for (DType t : {kBool, kUInt8, kInt32, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64})
    if (dtype_name(t) == name) return t;
  ADD_FAILURE() << "unknown dtype " << name;
  return kFloat64;
}

}  // namespace nabla::testing

// Inputs shared by the graph control-flow tests (graph/control_flow_test.cpp,
// graph/serialize_control_flow_test.cpp, graph/serialize_control_flow_errors_test.cpp).
#pragma once
#include <cstdint>

#include "nabla/nabla.h"
#include "support/op_info.h"

namespace nabla::testing {

// float64 values uniform in [-1, 1], drawn from `seed`.
inline Tensor f64_sample(IntList shape, uint64_t seed) { return sample(shape, -1.0, 1.0, seed); }

// A bool scalar: the predicate of a cond.
inline Tensor bool_scalar(bool b) { return full({}, b, TensorOptions().dtype(kBool)); }

// cond nested `levels` deep: each level captures x and p from the one above.
inline Tensor nested_conds(int levels, const Tensor& p, const Tensor& x) {
  if (levels == 0) return x * 2.0;
  return graph::cond(
      p, [&] { return nested_conds(levels - 1, p, x) + 1.0; }, [&] { return x; });
}

}  // namespace nabla::testing

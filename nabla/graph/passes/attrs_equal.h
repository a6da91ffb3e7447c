// Exact equality of op attributes (CSE): same kinds and same values, a
// Scalar's category included (2 and 2.0 promote differently).
#pragma once
#include "nabla/ops/attrs.h"

namespace nabla::graph {

bool attrs_equal(const Attrs& a, const Attrs& b);

}  // namespace nabla::graph

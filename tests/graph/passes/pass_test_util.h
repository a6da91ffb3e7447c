// Helpers shared by the pass tests: count nodes of an optimized graph and
// compare tensors in float64.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "nabla/nabla.h"

namespace nabla::graph::testing {

inline int count_ops(const GraphData& g, std::string_view op) {
  int n = 0;
  for (const Node& node : g.nodes) n += node.kind == NodeKind::Op && node.op->name == op;
  return n;
}

inline int count_kind(const GraphData& g, NodeKind k) {
  int n = 0;
  for (const Node& node : g.nodes) n += node.kind == k;
  return n;
}

}  // namespace nabla::graph::testing

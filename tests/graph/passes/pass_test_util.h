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

inline void expect_same(const Tensor& got, const Tensor& want, double tol = 0.0) {
  ASSERT_TRUE(got.defined());
  ASSERT_EQ(got.sizes(), want.sizes());
  ASSERT_EQ(got.dtype(), want.dtype());
  auto g = got.to(kFloat64).to_vector<double>();
  auto w = want.to(kFloat64).to_vector<double>();
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], w[i], tol) << "element " << i;
}

}  // namespace nabla::graph::testing

// Common-subexpression elimination: duplicates merge; random ops, different
// attributes, different control inputs and reads separated by an assign do not.
#include "nabla/graph/passes/cse.h"

#include <gtest/gtest.h>

#include "nabla/graph/passes/dead_code.h"
#include "nabla/testing/assert_close.h"
#include "tests/graph/passes/pass_test_util.h"

namespace nabla::graph {
namespace {

using nabla::testing::assert_close;

using testing::count_ops;

TEST(GraphPassCse, DuplicatesMergeAndChainsCollapse) {
  Graph g;
  Tensor x = g.placeholder(kFloat64, {3}, "x");
  Tensor y = g.placeholder(kFloat64, {3}, "y");
  Tensor a = relu(x + y);
  Tensor b = relu(x + y);  // add and relu both repeat
  Tensor c = a * b;
  OptGraph o = copy_of_user_graph(*g.data());
  EXPECT_EQ(eliminate_common_subexpressions(o), 2);
  eliminate_dead_code(o);
  EXPECT_EQ(count_ops(o.graph, "add"), 1);
  EXPECT_EQ(count_ops(o.graph, "relu"), 1);
  // b's value is now a's: both original values map to one node.
  const ValueRef va = o.source_values[static_cast<std::size_t>(value_of(a)->ref.node)][0];
  const ValueRef vb = o.source_values[static_cast<std::size_t>(value_of(b)->ref.node)][0];
  EXPECT_EQ(va.node, vb.node);

  Tensor xv = randn({3}, kFloat64), yv = randn({3}, kFloat64);
  Session sess(g);
  auto out = sess.run({c, b}, {{x, xv}, {y, yv}});
  assert_close(out[0], relu(xv + yv) * relu(xv + yv), {.rtol = 0.0, .atol = 0.0});
  assert_close(out[1], relu(xv + yv), {.rtol = 0.0, .atol = 0.0});
}

TEST(GraphPassCse, RandomOpsAndDifferentAttrsStayApart) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {4, 5}, "x");
  Tensor d1 = dropout(x, 0.5, true);
  Tensor d2 = dropout(x, 0.5, true);
  Tensor s0 = sum(x, {0});
  Tensor s1 = sum(x, {1});
  Tensor c1 = clamp(x, 0.1);
  Tensor c2 = clamp(x, 0.1000001);
  Tensor c3 = clamp(x, 1.0);
  Tensor c4 = clamp(x, int64_t{1});  // an integer bound promotes differently from 1.0
  (void)d1, (void)d2, (void)s0, (void)s1, (void)c1, (void)c2, (void)c3, (void)c4;
  OptGraph o = copy_of_user_graph(*g.data());
  EXPECT_EQ(eliminate_common_subexpressions(o), 0);
}

TEST(GraphPassCse, DifferentControlInputsStayApart) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {2}, "x");
  Tensor a = exp(x);
  Tensor b = exp(x);
  Tensor c = exp(x);
  OptGraph o = copy_of_user_graph(*g.data());
  const int na = value_of(a)->ref.node, nb = value_of(b)->ref.node, nc = value_of(c)->ref.node;
  o.node(nb).control_inputs = {na};  // b must run after a
  EXPECT_EQ(eliminate_common_subexpressions(o), 1);  // a and c merge; b waits on a, so it stays
  eliminate_dead_code(o);
  EXPECT_EQ(count_ops(o.graph, "exp"), 2);
  EXPECT_EQ(o.source_values[static_cast<std::size_t>(na)][0].node, o.source_values[static_cast<std::size_t>(nc)][0].node);
}

TEST(GraphPassCse, ReadsOfAVariableAcrossAnAssignStayApart) {
  Graph g;
  Tensor w = g.variable(full({2}, 3.0, kFloat64), "w");
  Tensor before = w * 2.0;
  Tensor upd = assign_add(w, full({2}, 1.0, kFloat64));
  Tensor after = w * 2.0;         // same op, attrs and input, but w changed in between
  Tensor again = after * 1.5;     // no assign between `after` and this one's twin
  Tensor again2 = (w * 2.0) * 1.5;
  Tensor init = g.global_variables_initializer();
  OptGraph o = copy_of_user_graph(*g.data());
  // The three 2.0 and the two 1.5 constants merge (3); `after`'s twin inside
  // again2 merges with `after`, and again2 with again (2); `before` stays.
  EXPECT_EQ(eliminate_common_subexpressions(o), 5);
  eliminate_dead_code(o);
  EXPECT_EQ(count_ops(o.graph, "mul"), 3);

  Session sess(g);
  sess.run(init);
  auto out = sess.run({before, upd, after, again2});
  assert_close(out[0], full({2}, 6.0, kFloat64), {.rtol = 0.0, .atol = 0.0});
  assert_close(out[2], full({2}, 8.0, kFloat64), {.rtol = 0.0, .atol = 0.0});
  assert_close(out[3], full({2}, 12.0, kFloat64), {.rtol = 0.0, .atol = 0.0});
}

}  // namespace
}  // namespace nabla::graph

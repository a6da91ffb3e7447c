// Constant folding: ops on constants become constants computed once; random
// ops and ops that fail are left to run; an in-place change of a constant
// after the Session optimized makes it optimize again.
#include "nabla/graph/passes/constant_folding.h"

#include <gtest/gtest.h>

#include <cmath>

#include "nabla/graph/passes/dead_code.h"
#include "nabla/testing/assert_close.h"
#include "tests/graph/passes/pass_test_util.h"
#include "tests/support/error_message.h"

namespace nabla::graph {
namespace {

using nabla::testing::assert_close;

using testing::count_kind;
using testing::count_ops;

TEST(GraphPassConstantFolding, OpsOnConstantsBecomeOneConstant) {
  Tensor cv = randn({3}, kFloat64);
  Graph g;
  Tensor x = g.placeholder(kFloat64, {3}, "x");
  Tensor c = g.constant(cv, "c");
  Tensor k = exp(c) * 2.0;  // exp and mul fold, in cascade
  Tensor y = x + k;
  OptGraph o = copy_of_user_graph(*g.data());
  EXPECT_EQ(fold_constants(o), 2);
  eliminate_dead_code(o);
  EXPECT_EQ(count_ops(o.graph, "exp"), 0);
  EXPECT_EQ(count_ops(o.graph, "mul"), 0);
  EXPECT_EQ(count_ops(o.graph, "add"), 1);
  const ValueRef vk = o.source_values[static_cast<std::size_t>(value_of(k)->ref.node)][0];
  ASSERT_EQ(o.node(vk.node).kind, NodeKind::Constant);
  assert_close(o.node(vk.node).value, exp(cv) * 2.0, {.rtol = 0.0, .atol = 0.0});

  Tensor xv = randn({3}, kFloat64);
  Session sess(g);
  assert_close(sess.run(y, {{x, xv}}), xv + exp(cv) * 2.0, {.rtol = 0.0, .atol = 0.0});
  EXPECT_EQ(sess.stats().ops_executed, 1);  // only the add runs
}

TEST(GraphPassConstantFolding, RandomOpsAreNotFolded) {
  Graph g;
  Tensor c = g.constant(ones({100}), "c");
  Tensor d = dropout(c, 0.5, true);
  OptGraph o = copy_of_user_graph(*g.data());
  EXPECT_EQ(fold_constants(o), 0);
  Session sess(g);
  // Two runs draw differently: the op still runs each time.
  Tensor a = sess.run(d), b = sess.run(d);
  EXPECT_FALSE(a.to(kFloat64).to_vector<double>() == b.to(kFloat64).to_vector<double>());
}

TEST(GraphPassConstantFolding, FailingOpIsLeftToRaiseItsErrorWhenRun) {
  Graph g;
  Tensor c = g.constant(zeros({3}), "c");
  Tensor i = g.constant(full({1}, 7, kInt64), "i");
  LocationScope at;
  const int line = __LINE__ - 1;
  Tensor y = index_select(c, 0, i);
  OptGraph o = copy_of_user_graph(*g.data());
  EXPECT_EQ(fold_constants(o), 0);
  Session sess(g);
  std::string msg = nabla::testing::error_of([&] { sess.run(y); });
  nabla::testing::expect_error(msg, {"index_select", "while running node 'index_select'"});
  EXPECT_NE(msg.find("constant_folding_test.cpp:" + std::to_string(line)), std::string::npos) << msg;
}

TEST(GraphPassConstantFolding, InPlaceChangeOfAConstantIsSeen) {
  Tensor cv = full({2}, 1.0, kFloat64);
  Graph g;
  Tensor x = g.placeholder(kFloat64, {2}, "x");
  Tensor y = x + exp(g.constant(cv, "c"));
  Session sess(g);
  Tensor xv = zeros({2}, kFloat64);
  assert_close(sess.run(y, {{x, xv}}), exp(cv), {.rtol = 0.0, .atol = 0.0});
  EXPECT_EQ(sess.stats().optimizations, 1);
  cv.add_(1.0);  // the graph holds a reference to cv: runs must see this
  assert_close(sess.run(y, {{x, xv}}), full({2}, std::exp(2.0), kFloat64), {.rtol = 0.0, .atol = 0.0});
  EXPECT_EQ(sess.stats().optimizations, 2);
}

TEST(GraphPassConstantFolding, HugeResultsAreNotFolded) {
  Graph g;
  Tensor c = g.constant(ones({1}), "c");
  Tensor big = c.expand({kMaxFoldedBytes});  // float32: 4x the limit
  Tensor s = sum(big);
  OptGraph o = copy_of_user_graph(*g.data());
  fold_constants(o);
  EXPECT_GE(count_kind(o.graph, NodeKind::Op), 1);
  Session sess(g);
  EXPECT_FLOAT_EQ(sess.run(s).item<float>(), static_cast<float>(kMaxFoldedBytes));
}

}  // namespace
}  // namespace nabla::graph

namespace nabla::graph {
namespace {

TEST(GraphPassConstantFolding, FoldKeepsTheInputsControlInputs) {
  Graph g;
  Tensor w = g.variable(zeros({2}, kFloat64), "w");
  Tensor upd = assign(w, full({2}, 5.0, kFloat64));
  Tensor c = g.constant(ones({2}, kFloat64), "c");
  Tensor y = exp(c);
  OptGraph o = copy_of_user_graph(*g.data());
  const int nc = value_of(c)->ref.node, nu = value_of(upd)->ref.node;
  o.node(nc).control_inputs = {nu};  // c waits for the assign
  EXPECT_EQ(fold_constants(o), 1);
  const Node& folded = o.node(value_of(y)->ref.node);
  EXPECT_EQ(folded.kind, NodeKind::Constant);
  EXPECT_EQ(folded.control_inputs, (std::vector<int>{nu}));
}

}  // namespace
}  // namespace nabla::graph

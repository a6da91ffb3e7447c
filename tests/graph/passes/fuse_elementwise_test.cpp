// Fusion: an elementwise chain runs as one node, one loop over the data, with
// no full-size intermediate, and gives the unfused results exactly.
#include "nabla/graph/passes/fuse_elementwise.h"

#include <gtest/gtest.h>

#include <cmath>

#include "nabla/testing/assert_close.h"
#include "tests/graph/passes/pass_test_util.h"

namespace nabla::graph {
namespace {

using nabla::testing::assert_close;

constexpr int64_t kN = 100003;  // not a multiple of the tile

TEST(GraphPassFusion, ChainRunsAsOneKernelWithoutIntermediates) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {kN}, "x");
  Tensor y = g.placeholder(kFloat32, {kN}, "y");
  Tensor z = sigmoid(relu(x * 2.0 + y) - 0.25);  // mul, add, relu, sub, sigmoid
  Tensor xv = randn({kN}), yv = randn({kN});

  Session fused(g);
  Session plain(g, {.fuse = false});
  EXPECT_NE(fused.plan_text({z}).find("sigmoid = fused[mul, add, relu, sub, sigmoid](x, const, y, const_1)"),
            std::string::npos)
      << fused.plan_text({z});
  Tensor a = fused.run(z, {{x, xv}, {y, yv}});
  Tensor b = plain.run(z, {{x, xv}, {y, yv}});
  assert_close(a, b, {.rtol = 0.0, .atol = 0.0});
  assert_close(a, sigmoid(relu(xv * 2.0 + yv) - 0.25), {.rtol = 0.0, .atol = 0.0});

  EXPECT_EQ(fused.stats().ops_executed, 1);  // one node for the whole chain
  EXPECT_EQ(fused.stats().fused_ops_executed, 1);
  EXPECT_EQ(plain.stats().ops_executed, 5);
  // Fused: the output plus tile-sized scratch, never a full intermediate.
  const int64_t out_bytes = kN * 4;
  EXPECT_GE(fused.stats().bytes_allocated, out_bytes);
  EXPECT_LT(fused.stats().bytes_allocated, out_bytes + 4 * 4 * kFusedTile * 4);
  EXPECT_LT(fused.stats().bytes_allocated, 2 * out_bytes);
  // Unfused (in place off as well): every op's result is a full tensor.
  Session no_inplace(g, {.fuse = false, .plan_memory = false});
  no_inplace.run(z, {{x, xv}, {y, yv}});
  EXPECT_EQ(no_inplace.stats().bytes_allocated, 5 * out_bytes);
}

TEST(GraphPassFusion, FetchedOrSharedValuesBreakTheChain) {
  Graph g;
  Tensor x = g.placeholder(kFloat64, {64}, "x");
  Tensor a = exp(x);
  Tensor b = a * 3.0;     // b is fetched: it must stay a value
  Tensor c = relu(b);
  Tensor d = neg(c) + c;  // c used twice
  Tensor xv = randn({64}, kFloat64);
  Session sess(g);
  auto out = sess.run({b, d}, {{x, xv}});
  assert_close(out[0], exp(xv) * 3.0, {.rtol = 0.0, .atol = 0.0});
  assert_close(out[1], neg(relu(exp(xv) * 3.0)) + relu(exp(xv) * 3.0), {.rtol = 0.0, .atol = 0.0});
  // {exp, mul} fuse (b is the chain's end), relu stays alone, {neg, add} fuse.
  std::string plan = sess.plan_text({b, d});
  EXPECT_NE(plan.find("mul = fused[exp, mul](x, const)"), std::string::npos) << plan;
  EXPECT_NE(plan.find("relu = relu(mul)"), std::string::npos) << plan;
  EXPECT_NE(plan.find("add = fused[neg, add](relu)"), std::string::npos) << plan;
  EXPECT_EQ(sess.stats().ops_executed, 3);
}

TEST(GraphPassFusion, RowBroadcastAndReducedFloatsAreNotFused) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {8, 16}, "x");
  Tensor row = g.placeholder(kFloat32, {16}, "row");
  Tensor y = exp(x + row);  // row broadcasts: add stays out, exp alone
  Tensor h = g.placeholder(kBFloat16, {16}, "h");
  Tensor k = exp(h * 2.0);
  OptGraph o = copy_of_user_graph(*g.data());
  std::vector<ValueRef> fetches = {value_of(y)->ref, value_of(k)->ref};
  EXPECT_EQ(fuse_elementwise(o, fetches), 0);
}

TEST(GraphPassFusion, ControlInputsKeepNodesOutOfChains) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {16}, "x");
  Tensor a = exp(x);
  Tensor b = relu(a);
  Tensor c = neg(b);
  Tensor d = sqrt(abs(x));
  OptGraph o = copy_of_user_graph(*g.data());
  const int nb = value_of(b)->ref.node, nd = value_of(d)->ref.node;
  o.node(nb).control_inputs = {nd};  // b waits for d: b stays a node of its own
  std::vector<ValueRef> fetches = {value_of(c)->ref, value_of(d)->ref};
  EXPECT_EQ(fuse_elementwise(o, fetches), 1);  // only {abs, sqrt}: d is fetched, but its abs is not
  EXPECT_FALSE(o.node(nb).fused);
  EXPECT_FALSE(o.node(value_of(c)->ref.node).fused);
  ASSERT_TRUE(o.node(nd).fused);
  EXPECT_EQ(fused_chain_text(*o.node(nd).fused), "fused[abs, sqrt]");
}

TEST(GraphPassFusion, NoFusionAcrossAnAssign) {
  Graph g;
  Tensor w = g.variable(full({4}, 2.0, kFloat64), "w");
  Tensor a = exp(w);
  Tensor upd = assign_add(w, full({4}, 1.0, kFloat64));
  Tensor b = a * 2.0;  // a read w before the assign; fusing exp into b would read it after
  Tensor init = g.global_variables_initializer();
  Session sess(g);
  sess.run(init);
  auto out = sess.run({b, upd});
  assert_close(out[0], full({4}, std::exp(2.0) * 2.0, kFloat64), {.rtol = 0.0, .atol = 1e-12});
  EXPECT_EQ(sess.stats().fused_ops_executed, 0);
}

TEST(GraphPassFusion, ErrorInsideAChainNamesTheOriginalNode) {
  Graph g;
  Tensor x = g.placeholder(kInt64, {8}, "x");
  Tensor z = g.placeholder(kInt64, {8}, "z");
  LocationScope at;
  const int line = __LINE__ - 1;
  Tensor y = floor_divide(x + 1, z) * 2;
  Session sess(g);
  std::string msg;
  try {
    sess.run(y, {{x, ones({8}, kInt64)}, {z, zeros({8}, kInt64)}});
  } catch (const Error& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("integer division by zero"), std::string::npos) << msg;
  EXPECT_NE(msg.find("while running node 'floor_divide' (created at"), std::string::npos) << msg;
  EXPECT_NE(msg.find("fuse_elementwise_test.cpp:" + std::to_string(line)), std::string::npos) << msg;
}

}  // namespace
}  // namespace nabla::graph

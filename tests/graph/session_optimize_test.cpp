// The Session's use of the passes: the user's graph stays as built, any of its
// values may be fetched, the graph may grow after the Session is made,
// optimization can be switched off, and fetched bytes are counted.
#include <gtest/gtest.h>

#include "nabla/testing/assert_close.h"
#include "tests/graph/passes/pass_test_util.h"

namespace nabla::graph {
namespace {

using nabla::testing::assert_close;

TEST(GraphSessionOptimize, UserGraphUntouchedAndEveryValueFetchable) {
  Tensor cv = randn({3}, kFloat64);
  Graph g;
  Tensor x = g.placeholder(kFloat64, {3}, "x");
  Tensor c = g.constant(cv, "c");
  Tensor k = exp(c);           // folded
  Tensor a = x * 1.0;          // simplified away
  Tensor s1 = relu(a + k);
  Tensor s2 = relu(a + k);     // merged with s1
  Tensor y = s1 * s2;
  const std::string before = g.to_text();
  Session sess(g);
  EXPECT_EQ(g.to_text(), before);
  EXPECT_LT(sess.optimized_graph_text().size(), before.size());
  Tensor xv = randn({3}, kFloat64);
  auto out = sess.run({y, k, a, s2, c, x}, {{x, xv}});
  assert_close(out[0], relu(xv + exp(cv)) * relu(xv + exp(cv)), {.rtol = 0.0, .atol = 0.0});
  assert_close(out[1], exp(cv), {.rtol = 0.0, .atol = 0.0});
  assert_close(out[2], xv, {.rtol = 0.0, .atol = 0.0});
  assert_close(out[3], relu(xv + exp(cv)), {.rtol = 0.0, .atol = 0.0});
  assert_close(out[4], cv, {.rtol = 0.0, .atol = 0.0});
  assert_close(out[5], xv, {.rtol = 0.0, .atol = 0.0});
}

TEST(GraphSessionOptimize, OptimizedTextShowsTheResult) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {4}, "x");
  Tensor c = g.constant(full({4}, 2.0f), "c");
  Tensor y = (x * 1.0f) + exp(c) + exp(c);
  (void)y;
  Session sess(g);
  std::string text = sess.optimized_graph_text();
  // exp(c) folded into a constant named after it; the two exp merged; x * 1 gone.
  EXPECT_EQ(text.find("mul"), std::string::npos) << text;
  EXPECT_NE(text.find("exp = constant() : float32[4]"), std::string::npos) << text;
  EXPECT_NE(text.find("add = add(x, exp) : float32[4]"), std::string::npos) << text;
  EXPECT_NE(text.find("add_1 = add(add, exp) : float32[4]"), std::string::npos) << text;
}

TEST(GraphSessionOptimize, GraphGrownAfterTheSessionIsReoptimized) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {2}, "x");
  Tensor a = exp(x);
  Session sess(g);
  sess.run(a, {{x, ones({2})}});
  Tensor b = a * 3.0f;  // added after the Session was made
  Tensor out = sess.run(b, {{x, ones({2})}});
  assert_close(out, exp(ones({2})) * 3.0f, {.rtol = 0.0, .atol = 0.0});
  EXPECT_EQ(sess.stats().optimizations, 2);
  sess.run(b, {{x, ones({2})}});
  EXPECT_EQ(sess.stats().optimizations, 2);
  EXPECT_EQ(sess.stats().plans_built, 2);  // {a}, then {b} for the new version
}

TEST(GraphSessionOptimize, MovedSessionKeepsVariablesAndPlans) {
  Graph g;
  Tensor w = g.variable(full({2}, 1.0), "w");
  Tensor upd = assign_add(w, full({2}, 1.0));
  Tensor init = g.global_variables_initializer();
  Session a(g);
  a.run(init);
  a.run(upd);
  Session b = std::move(a);
  assert_close(b.run(upd), full({2}, 3.0), {.rtol = 0.0, .atol = 0.0});
  EXPECT_EQ(b.stats().runs, 3);
}

TEST(GraphSessionOptimize, OptionsOffRunTheGraphAsBuilt) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {5}, "x");
  Tensor y = relu(x * 1.0f) + relu(x * 1.0f);
  Session off(g, {.optimize = false});
  Session on(g);
  EXPECT_EQ(off.optimized_graph_text(), g.to_text());
  Tensor xv = randn({5});
  assert_close(off.run(y, {{x, xv}}), on.run(y, {{x, xv}}), {.rtol = 0.0, .atol = 0.0});
  EXPECT_EQ(off.stats().ops_executed, 5);  // mul, relu, mul, relu, add
  EXPECT_EQ(on.stats().ops_executed, 2);   // relu(x) + relu(x): x * 1 goes, CSE merges the relus
}

TEST(GraphSessionOptimize, DeviceToHostCountsFetchedBytesOnly) {
  Tensor xv = randn({8, 3}), tv = randn({8, 4}), w0 = randn({3, 4});
  Graph g;
  Tensor x = g.placeholder(kFloat32, {8, 3}, "x");
  Tensor t = g.placeholder(kFloat32, {8, 4}, "t");
  Tensor w = g.variable(w0, "w");
  Tensor err = matmul(x, w) - t;
  Tensor loss = mean(square(err));
  // d loss / d w = x^T (2 err / numel), written by hand.
  Tensor grad = matmul(transpose(x, 0, 1), err * (2.0f / 32.0f));
  Tensor updates = group({assign_sub(w, grad * 0.1f)});
  Tensor init = g.global_variables_initializer();
  Session sess(g);
  sess.run(init);
  EXPECT_EQ(sess.stats().device_to_host_bytes, 0);
  auto out = sess.run({loss, updates}, {{x, xv}, {t, tv}});
  EXPECT_EQ(sess.stats().device_to_host_bytes, 4);  // loss: one float32; the update stays in the session
  EXPECT_FALSE(out[1].defined());
  Tensor e = matmul(xv, w0) - tv;
  assert_close(out[0], mean(square(e)), {.rtol = 0.0, .atol = 1e-6});
  assert_close(sess.variable_value(w), w0 - matmul(transpose(xv, 0, 1), e * (2.0f / 32.0f)) * 0.1f,
               {.rtol = 0.0, .atol = 1e-6});
  sess.run({loss, w}, {{x, xv}, {t, tv}});
  EXPECT_EQ(sess.stats().device_to_host_bytes, 4 + 4 + 3 * 4 * 4);  // fetching w copies it out
}

}  // namespace
}  // namespace nabla::graph

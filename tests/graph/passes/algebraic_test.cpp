// Algebraic simplification: identities disappear only where the dtype and
// shape stay the same and the value cannot alias a variable.
#include "nabla/graph/passes/algebraic.h"

#include <gtest/gtest.h>

#include "nabla/graph/passes/dead_code.h"
#include "nabla/testing/assert_close.h"
#include "tests/graph/passes/pass_test_util.h"

namespace nabla::graph {
namespace {

using nabla::testing::assert_close;

using testing::count_kind;

TEST(GraphPassAlgebraic, IdentitiesBecomeTheirInput) {
  Graph g;
  const int line = __LINE__ + 1;
  Tensor x = g.placeholder(kFloat64, {2, 3}, "x");
  Tensor y = ((1.0 * (x * 1.0) + 0.0) - 0.0) / 1.0;
  Tensor z = neg(neg(y));
  Tensor t = transpose(transpose(z, 0, 1), 1, 0);
  Tensor r = reshape(t, {2, 3});
  Tensor p = permute(permute(r, {1, 0}), {-1, 0});
  Tensor q = (0.0 + p).to(kFloat64);
  OptGraph o = copy_of_user_graph(*g.data());
  // mul, mul, add, sub, div, the outer neg, the second transpose, the
  // reshape (a view node), the permute pair, and 0 + p; `.to(kFloat64)` made no node.
  EXPECT_EQ(simplify_algebra(o), 10);
  eliminate_dead_code(o);
  // Every value is x now; what is left is x and the (unused) constants.
  const ValueRef vq = o.source_values[static_cast<std::size_t>(value_of(q)->ref.node)][0];
  EXPECT_EQ(o.node(vq.node).kind, NodeKind::Placeholder);

  Session sess(g);
  Tensor xv = randn({2, 3}, kFloat64);
  assert_close(sess.run(q, {{x, xv}}), xv, {.rtol = 0.0, .atol = 0.0});
  EXPECT_EQ(sess.stats().ops_executed, 0);
  EXPECT_EQ(sess.plan_text({q}), "x = placeholder() : float64[2, 3]  @ algebraic_test.cpp:" + std::to_string(line) + "\n");
}

TEST(GraphPassAlgebraic, BroadcastOrDtypeChangesAreKept) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {4}, "x");
  Tensor b = x + zeros({3, 4});            // broadcasts to [3, 4]
  Tensor nearly = x * full({4}, 1.0000001);
  Tensor not_back = permute(permute(g.placeholder(kFloat32, {2, 3, 4}, "t"), {1, 2, 0}), {1, 2, 0});
  (void)b, (void)nearly, (void)not_back;
  OptGraph o = copy_of_user_graph(*g.data());
  EXPECT_EQ(simplify_algebra(o), 0);
}

TEST(GraphPassAlgebraic, PromotionCastsStayWhenTheMulGoes) {
  // i * 1.0 is mul(cast(i), 1.0): the mul goes, the cast to float32 stays.
  Graph g;
  Tensor i = g.placeholder(kInt32, {4}, "i");
  Tensor f = i * 1.0;
  Tensor x = g.placeholder(kFloat32, {4}, "x");
  Tensor h = x * ones({4}, kFloat64);  // mul(cast(x) to float64, ones)
  OptGraph o = copy_of_user_graph(*g.data());
  EXPECT_EQ(simplify_algebra(o), 2);
  Session sess(g);
  Tensor iv = arange(4).to(kInt32), xv = randn({4});
  auto out = sess.run({f, h}, {{i, iv}, {x, xv}});
  assert_close(out[0], iv * 1.0, {.rtol = 0.0, .atol = 0.0});
  assert_close(out[1], xv * ones({4}, kFloat64), {.rtol = 0.0, .atol = 0.0});
  EXPECT_EQ(sess.stats().ops_executed, 2);  // the two casts
}

TEST(GraphPassAlgebraic, VariableTimesOneStaysASnapshot) {
  Graph g;
  Tensor w = g.variable(full({2}, 3.0, kFloat64), "w");
  Tensor snap = w * 1.0;  // must keep w's value from before the assign below
  Tensor upd = assign_add(w, full({2}, 1.0, kFloat64));
  Tensor init = g.global_variables_initializer();
  OptGraph o = copy_of_user_graph(*g.data());
  EXPECT_EQ(simplify_algebra(o), 0);
  Session sess(g);
  sess.run(init);
  auto out = sess.run({snap, upd});
  assert_close(out[0], full({2}, 3.0, kFloat64), {.rtol = 0.0, .atol = 0.0});
  assert_close(out[1], full({2}, 4.0, kFloat64), {.rtol = 0.0, .atol = 0.0});
}

}  // namespace
}  // namespace nabla::graph

// Updates written straight into variables: the chain that computes an
// assign's value writes into the variable's buffer (assign_sub/assign_add
// as a last sub/add step), with the results of the plain assigns, and not
// when something between the chain and the assign reads the variable.
#include "nabla/graph/passes/variable_writes.h"

#include <gtest/gtest.h>

#include <string>

#include "nabla/graph/passes/fuse_elementwise.h"
#include "nabla/testing/assert_close.h"
#include "tests/graph/passes/pass_test_util.h"

namespace nabla::graph {
namespace {

using nabla::testing::assert_close;

constexpr int64_t kTiledLength = 10007;  // several tiles, not a multiple of one

TEST(GraphPassVariableWrites, UpdatesRunAsChainsIntoTheVariablesWithTheResultsOfAssigns) {
  Graph g;
  Tensor grad = g.placeholder(kFloat32, {kTiledLength}, "grad");
  Tensor w = g.variable(randn({kTiledLength}), "w");
  Tensor m = g.variable(zeros({kTiledLength}), "m");
  Tensor acc = g.variable(ones({kTiledLength}), "acc");
  // A loss that reads the variables (the chains write through these reads),
  // then Adam's first moment and the variable, as graph optimizers write them.
  Tensor loss = sum(w * grad) + sum(acc);
  Tensor m_t = assign(m, m * 0.9 + grad * 0.1);
  Tensor step = assign_sub(w, m_t / (sqrt(abs(m_t)) + 1e-3) * 0.01);
  Tensor bump = assign_add(acc, exp(grad));  // one op: made a one-step chain
  Tensor train = group({m_t, step, bump});
  Tensor init = g.global_variables_initializer();

  Session into(g), plain(g, {.fuse = false});
  into.run(init);
  plain.run(init);
  const std::string plan = into.plan_text({loss, train}, {{grad, randn({kTiledLength})}});
  EXPECT_NE(plan.find("fused[abs, sqrt, add, div, mul, sub]"), std::string::npos) << plan;
  EXPECT_NE(plan.find("fused[exp, add]"), std::string::npos) << plan;
  for (int i = 0; i < 4; ++i) {
    Tensor gv = randn({kTiledLength});
    assert_close(into.run({loss, train}, {{grad, gv}})[0], plain.run({loss, train}, {{grad, gv}})[0],
                 {.rtol = 0.0, .atol = 0.0});
    for (const Tensor& v : {w, m, acc})
      assert_close(into.variable_value(v), plain.variable_value(v), {.rtol = 0.0, .atol = 0.0});
  }
  // After the first run the updates allocate nothing: no temporaries, no copies.
  const int64_t bytes = into.stats().bytes_allocated;
  into.run({loss, train}, {{grad, randn({kTiledLength})}});
  EXPECT_EQ(into.stats().bytes_allocated, bytes);
}

TEST(GraphPassVariableWrites, PlanMarksTheChainsAndTheAssigns) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {8}, "x");
  Tensor v = g.variable(zeros({8}), "v");
  Tensor read = v * 1.5;
  Tensor upd = assign_sub(v, x * 2.0);
  OptGraph og = copy_of_user_graph(*g.data());
  VariableWrites w = plan_variable_writes(og, {value_of(read)->ref, value_of(upd)->ref});
  const int a = value_of(upd)->ref.node;
  const int p = og.node(a).inputs[0].node;
  EXPECT_EQ(w.written[static_cast<std::size_t>(a)], 1);
  const int k = w.into_input[static_cast<std::size_t>(p)];
  ASSERT_GE(k, 0);
  EXPECT_EQ(og.node(og.node(p).inputs[static_cast<std::size_t>(k)].node).kind, NodeKind::Variable);
  ASSERT_TRUE(og.node(p).fused);
  EXPECT_EQ(fused_chain_text(*og.node(p).fused), "fused[mul, sub]");
  for (std::size_t i = 0; i < w.written.size(); ++i)
    if (static_cast<int>(i) != a) EXPECT_EQ(w.written[i], 0);
}

TEST(GraphPassVariableWrites, AReadBetweenTheChainAndTheAssignKeepsTheAssign) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {kTiledLength}, "x");
  Tensor m = g.variable(randn({kTiledLength}), "m");
  Tensor next = m * 0.5 + x;    // the chain
  Tensor seen = m * 3.0 + 1.0;  // reads m after the chain, before the assign: must see the old m
  Tensor a = assign(m, next);
  Tensor init = g.global_variables_initializer();
  Session into(g), plain(g, {.fuse = false});
  into.run(init);
  plain.run(init);
  Tensor xv = randn({kTiledLength});
  auto got = into.run({seen, a}, {{x, xv}});
  auto want = plain.run({seen, a}, {{x, xv}});
  assert_close(got[0], want[0], {.rtol = 0.0, .atol = 0.0});
  assert_close(got[1], want[1], {.rtol = 0.0, .atol = 0.0});
  OptGraph og = copy_of_user_graph(*g.data());
  VariableWrites w = plan_variable_writes(og, {value_of(seen)->ref, value_of(a)->ref});
  for (char c : w.written) EXPECT_EQ(c, 0);
}

TEST(GraphPassVariableWrites, AViewOfTheVariableInTheChainKeepsTheAssign) {
  Graph g;
  Tensor m = g.variable(randn({6, 6}), "m");
  Tensor a = assign(m, transpose(m, 0, 1) * 2.0 + 1.0);  // reads m transposed while writing it
  Tensor init = g.global_variables_initializer();
  Session into(g), plain(g, {.fuse = false});
  into.run(init);
  plain.run(init);
  into.run(a);
  plain.run(a);
  assert_close(into.variable_value(m), plain.variable_value(m), {.rtol = 0.0, .atol = 0.0});
}

}  // namespace
}  // namespace nabla::graph

// Dead-code elimination keeps every source value computable; pruning keeps
// what the fetches need, control inputs included.
#include <gtest/gtest.h>

#include "nabla/graph/passes/dead_code.h"
#include "tests/graph/passes/pass_test_util.h"

namespace nabla::graph {
namespace {

TEST(GraphPassDeadCode, KeepsEverySourceValueDropsOrphans) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {2}, "x");
  Tensor a = exp(x);
  Tensor b = exp(x);
  OptGraph o = copy_of_user_graph(*g.data());
  eliminate_dead_code(o);
  EXPECT_EQ(o.size(), 3);  // nothing is dead yet: every node is some source value
  // Forward b to a, as CSE would: b's node is then dead.
  const int na = value_of(a)->ref.node, nb = value_of(b)->ref.node;
  o.forward({nb, 0}, {na, 0});
  eliminate_dead_code(o);
  EXPECT_EQ(o.size(), 2);
  EXPECT_EQ(o.source_values[static_cast<std::size_t>(nb)][0].node, o.source_values[static_cast<std::size_t>(na)][0].node);
  EXPECT_EQ(o.origin, (std::vector<int>{0, na}));
}

TEST(GraphPassDeadCode, PruneFollowsInputsAndControlInputs) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {2}, "x");
  Tensor y = g.placeholder(kFloat32, {2}, "y");
  Tensor a = relu(x);
  Tensor b = exp(y);
  Tensor c = sum(a);
  Tensor d = neg(x);
  (void)d;
  OptGraph o = copy_of_user_graph(*g.data());
  o.node(value_of(c)->ref.node).control_inputs = {value_of(b)->ref.node};  // c runs after b
  std::vector<ValueRef> fetches = {value_of(c)->ref};
  prune_to_fetches(o, fetches);
  // x, y, relu, exp, sum: neg is gone.
  EXPECT_EQ(o.size(), 5);
  EXPECT_EQ(testing::count_ops(o.graph, "neg"), 0);
  EXPECT_EQ(o.node(fetches[0].node).name, "sum");
  EXPECT_EQ(o.source_values[static_cast<std::size_t>(value_of(d)->ref.node)][0].node, -1);
  EXPECT_EQ(o.node(fetches[0].node).control_inputs.size(), 1u);
  EXPECT_EQ(o.node(o.node(fetches[0].node).control_inputs[0]).name, "exp");
}

}  // namespace
}  // namespace nabla::graph

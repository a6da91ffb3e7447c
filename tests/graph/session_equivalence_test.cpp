// A model-sized graph (composite ops, broadcasting, reductions, shape ops,
// constants) gives the same values with every pass on as with none, run
// after run (the plan and its reused buffers do not leak state between runs).
#include <gtest/gtest.h>

#include "nabla/ops/nn_functional.h"
#include "nabla/testing/assert_close.h"
#include "tests/graph/passes/pass_test_util.h"

namespace nabla::graph {
namespace {

using nabla::testing::assert_close;

TEST(GraphSessionEquivalence, PassesOnEqualPassesOff) {
  Tensor w1v = randn({6, 8}, kFloat64) * 0.3, w2v = randn({8, 3}, kFloat64) * 0.3;
  Graph g;
  Tensor x = g.placeholder(kFloat64, {5, 6}, "x");
  Tensor labels = g.placeholder(kInt64, {5}, "labels");
  Tensor w1 = g.variable(w1v, "w1");
  Tensor w2 = g.variable(w2v, "w2");
  Tensor scale = g.constant(full({8}, 0.5, kFloat64), "scale");
  Tensor h = tanh(matmul(x, w1) * exp(scale * 2.0) + 0.1);
  Tensor hn = (h - mean(h, {1}, true)) / sqrt(mean(square(h), {1}, true) + 1e-5);
  Tensor logits = matmul(relu(hn) * 1.0 + sigmoid(hn) * 0.25, w2);
  Tensor p = softmax(logits, 1);
  Tensor loss = cross_entropy(logits, labels);
  Tensor stats = transpose(transpose(p, 0, 1), 0, 1).sum({0}) + neg(neg(sum(p, {0})));
  Tensor upd = group({assign_sub(w2, matmul(transpose(relu(hn), 0, 1), p) * 0.01)});
  Tensor init = g.global_variables_initializer();

  Session on(g), off(g, {.optimize = false});
  on.run(init);
  off.run(init);
  for (int step = 0; step < 3; ++step) {
    Tensor xv = randn({5, 6}, kFloat64);
    Tensor lv = randint(0, 3, {5});
    auto a = on.run({loss, p, stats, h, upd}, {{x, xv}, {labels, lv}});
    auto b = off.run({loss, p, stats, h, upd}, {{x, xv}, {labels, lv}});
    for (int i = 0; i < 4; ++i)
      assert_close(a[static_cast<std::size_t>(i)], b[static_cast<std::size_t>(i)], {.rtol = 0.0, .atol = 1e-14});
    assert_close(on.variable_value(w2), off.variable_value(w2), {.rtol = 0.0, .atol = 1e-14});
  }
  EXPECT_LT(on.stats().ops_executed, off.stats().ops_executed);
  EXPECT_GT(on.stats().fused_ops_executed, 0);
}

}  // namespace
}  // namespace nabla::graph

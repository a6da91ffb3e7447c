// minimize(): symbolic gradients (graph::gradients) + the update rules. N steps
// in a Session give the parameters N steps of nabla::optim give eagerly, in
// float64; also through layers::dense and an nn Module wrapped by ModuleVariables.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"
#include "tests/support/error_message.h"
#include "tests/support/max_abs_diff.h"

namespace nabla::graph {
namespace {

using nabla::testing::assert_close;

using nabla::testing::error_of;
using nabla::testing::expect_error;

using nabla::testing::max_abs_diff;

using MakeEager = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)>;

// A two-layer ReLU net with an MSE loss, trained `steps` times in a graph by
// `opt` and eagerly by `make_eager`; expects the same weights.
void expect_graph_equals_eager(Optimizer& opt, const MakeEager& make_eager, int steps) {
  Tensor xv = randn({8, 5}, kFloat64), yv = randn({8, 2}, kFloat64);
  Tensor w1_0 = randn({5, 6}, kFloat64), w2_0 = randn({6, 2}, kFloat64);

  Graph g;
  Tensor x = g.placeholder(kFloat64, {8, 5}, "x");
  Tensor y = g.placeholder(kFloat64, {8, 2}, "y");
  Tensor w1 = g.variable(w1_0, "w1");
  Tensor w2 = g.variable(w2_0, "w2");
  Tensor loss = losses::mean_squared_error(y, matmul(relu(matmul(x, w1)), w2));
  Tensor train = opt.minimize(loss);
  Session sess(g);
  sess.run(g.global_variables_initializer());
  std::vector<double> graph_losses;
  for (int i = 0; i < steps; ++i)
    graph_losses.push_back(sess.run({loss, train}, {{x, xv}, {y, yv}})[0].item<double>());

  Tensor e1 = w1_0.clone().requires_grad_(), e2 = w2_0.clone().requires_grad_();
  auto eager = make_eager({e1, e2});
  for (int i = 0; i < steps; ++i) {
    eager->zero_grad();
    Tensor l = mse_loss(matmul(relu(matmul(xv, e1)), e2), yv);
    EXPECT_NEAR(l.item<double>(), graph_losses[static_cast<std::size_t>(i)], 1e-12) << "step " << i;
    l.backward();
    eager->step();
  }
  assert_close(sess.variable_value(w1), e1.detach(), {.rtol = 0.0, .atol = 1e-12});
  assert_close(sess.variable_value(w2), e2.detach(), {.rtol = 0.0, .atol = 1e-12});
  EXPECT_LT(graph_losses.back(), graph_losses.front());
}

TEST(GraphMinimize, GradientDescentEqualsEagerSgd) {
  GradientDescentOptimizer opt(0.05);
  expect_graph_equals_eager(
      opt, [](std::vector<Tensor> p) { return std::make_unique<optim::SGD>(p, optim::Options{{"lr", 0.05}}); }, 15);
}

TEST(GraphMinimize, MomentumEqualsEagerSgdWithMomentum) {
  MomentumOptimizer opt(0.02, 0.9);
  expect_graph_equals_eager(
      opt,
      [](std::vector<Tensor> p) {
        return std::make_unique<optim::SGD>(p, optim::Options{{"lr", 0.02}, {"momentum", 0.9}});
      },
      15);
}

TEST(GraphMinimize, AdamEqualsEagerAdam) {
  AdamOptimizer opt(0.01);
  expect_graph_equals_eager(
      opt, [](std::vector<Tensor> p) { return std::make_unique<optim::Adam>(p, optim::Options{{"lr", 0.01}}); }, 15);
}

TEST(GraphMinimize, RMSPropEqualsEagerRMSprop) {
  struct Case {
    double momentum;
    bool centered;
  };
  for (Case c : {Case{0.0, false}, Case{0.5, false}, Case{0.5, true}}) {
    RMSPropOptimizer opt(0.01, 0.95, c.momentum, 1e-6, c.centered);
    expect_graph_equals_eager(
        opt,
        [&](std::vector<Tensor> p) {
          return std::make_unique<optim::RMSprop>(p, optim::Options{{"lr", 0.01},
                                                                    {"alpha", 0.95},
                                                                    {"eps", 1e-6},
                                                                    {"momentum", c.momentum},
                                                                    {"centered", c.centered ? 1.0 : 0.0}});
        },
        15);
  }
}

TEST(GraphMinimize, RMSPropSlotsAreNamedAfterTheVariable) {
  Graph g;
  Tensor w = g.variable(ones({2}, kFloat64), "w");
  RMSPropOptimizer(0.1, 0.9, 0.5, 1e-10, true).minimize(sum(w * w));
  std::vector<std::string> names;
  for (const Tensor& v : g.variables()) names.push_back(g.node_of(v).name);
  EXPECT_EQ(names, (std::vector<std::string>{"w", "w/RMSProp", "w/RMSProp_1", "w/RMSProp_2"}));
  expect_error(error_of([] { RMSPropOptimizer(0.1, -0.5); }), {"RMSPropOptimizer", "decay must be >= 0, got -0.5"});
}

TEST(GraphMinimize, VarListLimitsWhatIsTrainedAndUnreachedVariablesAreSkipped) {
  Graph g;
  Tensor x = g.placeholder(kFloat64, {4, 3}, "x");
  Tensor w = g.variable(ones({3, 1}, kFloat64), "w");
  Tensor b = g.variable(zeros({1}, kFloat64), "b");
  Tensor unused = g.variable(ones({2}, kFloat64), "unused");
  Tensor loss = sum(matmul(x, w) + b);
  GradientDescentOptimizer opt(0.1);
  GradsAndVars gv = opt.compute_gradients(loss);
  ASSERT_EQ(gv.size(), 3u);
  EXPECT_TRUE(gv[0].first.defined());
  EXPECT_FALSE(gv[2].first.defined());  // the loss does not depend on `unused`
  Tensor only_b = opt.minimize(loss, {b});
  Tensor all = opt.minimize(loss);
  Session sess(g);
  sess.run(g.global_variables_initializer());
  Tensor xv = ones({4, 3}, kFloat64);
  sess.run(only_b, {{x, xv}});
  EXPECT_EQ(sess.variable_value(w).to_vector<double>(), std::vector<double>(3, 1.0));
  EXPECT_NEAR(sess.variable_value(b).item<double>(), -0.4, 1e-15);  // d loss / d b = 4
  sess.run(all, {{x, xv}});
  EXPECT_NEAR(sess.variable_value(w).to_vector<double>()[0], 1.0 - 0.4, 1e-15);
  EXPECT_EQ(sess.variable_value(unused).to_vector<double>(), std::vector<double>(2, 1.0));
}

TEST(GraphMinimize, DenseLayersTrainInAGraphAndEqualEagerTraining) {
  // The graph draws its initial values; the eager side starts from them.
  Graph g;
  Tensor x = g.placeholder(kFloat64, {16, 4}, "x");
  Tensor y = g.placeholder(kFloat64, {16, 1}, "y");
  Tensor h = layers::dense(x, 8, [](const Tensor& t) { return tanh(t); });
  Tensor out = layers::dense(h, 1);
  Tensor loss = losses::mean_squared_error(y, out);
  Tensor train = AdamOptimizer(0.02).minimize(loss);  // the optimizer may go: the graph holds the update
  Session sess(g);
  sess.run(g.global_variables_initializer());
  std::vector<Tensor> vars = g.variables(true);
  ASSERT_EQ(vars.size(), 4u);
  std::vector<Tensor> eager;
  for (const Tensor& v : vars) eager.push_back(sess.variable_value(v).requires_grad_());
  optim::Adam eager_opt(eager, {{"lr", 0.02}});
  Tensor xv = randn({16, 4}, kFloat64);
  Tensor yv = sin(xv.sum({1}, true));
  double first = 0, last = 0;
  for (int i = 0; i < 40; ++i) {
    double l = sess.run({loss, train}, {{x, xv}, {y, yv}})[0].item<double>();
    (i == 0 ? first : last) = l;
    eager_opt.zero_grad();
    mse_loss(matmul(tanh(matmul(xv, eager[0]) + eager[1]), eager[2]) + eager[3], yv).backward();
    eager_opt.step();
  }
  EXPECT_LT(last, 0.5 * first);
  for (std::size_t i = 0; i < vars.size(); ++i)
    assert_close(sess.variable_value(vars[i]), eager[i].detach(),
                 {.rtol = 0.0, .atol = 1e-12, .msg = ::nabla::detail::concat(g.node_of(vars[i]).name)});
}

TEST(GraphMinimize, ModuleTrainedInAGraphEqualsEagerTrainingAfterCopyBack) {
  auto make = [] {
    manual_seed(42);
    auto m = std::make_shared<nn::Sequential>(nn::Linear(3, 6), nn::ReLU(), nn::Linear(6, 2));
    m->to(kFloat64);
    return m;
  };
  auto graph_model = make(), eager_model = make();
  Tensor before = graph_model->parameters()[0].detach().clone();
  Tensor xv = randn({10, 3}, kFloat64), yv = randn({10, 2}, kFloat64);

  Graph g;
  Tensor x = g.placeholder(kFloat64, {10, 3}, "x");
  Tensor y = g.placeholder(kFloat64, {10, 2}, "y");
  Session sess(g);
  {
    nn::ModuleVariables mv(g, *graph_model);
    Tensor loss = losses::mean_squared_error(y, graph_model->forward(x));
    Tensor train = GradientDescentOptimizer(0.1).minimize(loss, mv.trainable_variables());
    sess.run(g.global_variables_initializer());
    for (int i = 0; i < 20; ++i) sess.run(train, {{x, xv}, {y, yv}});
    mv.copy_to_module(sess);
  }
  optim::SGD eager_opt(eager_model->parameters(), {{"lr", 0.1}});
  for (int i = 0; i < 20; ++i) {
    eager_opt.zero_grad();
    mse_loss(eager_model->forward(xv), yv).backward();
    eager_opt.step();
  }
  EXPECT_GT(max_abs_diff(graph_model->parameters()[0].detach(), before), 1e-3);  // training changed it
  auto gp = graph_model->parameters(), ep = eager_model->parameters();
  for (std::size_t i = 0; i < gp.size(); ++i)
    assert_close(gp[i].detach(), ep[i].detach(), {.rtol = 0.0, .atol = 1e-12, .msg = ::nabla::detail::concat(i)});
}

TEST(GraphMinimize, BadLossesAndVarListsAreClearErrors) {
  Graph g;
  Tensor w = g.variable(ones({2}), "w");
  Tensor x = g.placeholder(kFloat32, {2}, "x");
  GradientDescentOptimizer opt(0.1);
  expect_error(error_of([&] { opt.minimize(ones({1})); }),
               {"GradientDescentOptimizer::compute_gradients", "a concrete tensor"});
  expect_error(error_of([&] { opt.minimize(sum(w * x), {x}); }),
               {"compute_gradients", "var_list[0]", "'x'", "not a variable"});
  Graph other;
  Tensor v = other.variable(ones({2}), "v");
  expect_error(error_of([&] { opt.minimize(sum(w * x), {v}); }), {"compute_gradients", "not a value of the loss's graph"});
  Graph empty;
  Tensor p = empty.placeholder(kFloat32, {2}, "p");
  expect_error(error_of([&] { opt.minimize(sum(p * p)); }), {"compute_gradients", "no trainable variables"});
  expect_error(error_of([&] { opt.minimize(sum(x * x), {w}); }), {"apply_gradients", "no gradients provided"});
}

}  // namespace
}  // namespace nabla::graph

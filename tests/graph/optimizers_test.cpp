// Graph-mode optimizers against nabla::optim's eager steps (PyTorch semantics)
// in float64. Here the gradients are written by hand in the graph (least
// squares: d/dw mean((x w - y)^2) = 2/N x^T (x w - y)) so that these tests
// check the update rules alone; minimize() with symbolic gradients is tested
// in optimizers_minimize_test.cpp.
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

struct Problem {
  Tensor x = randn({16, 5}, kFloat64);
  Tensor y = randn({16, 3}, kFloat64);
  Tensor w0 = randn({5, 3}, kFloat64);
};

// `steps` graph steps of `opt` on the least-squares problem; returns w.
Tensor graph_steps(const Problem& p, Optimizer& opt, int steps) {
  Graph g;
  Tensor x = g.constant(p.x, "x");
  Tensor y = g.constant(p.y, "y");
  Tensor w = g.variable(p.w0, "w");
  Tensor grad = matmul(x.t(), matmul(x, w) - y) * (2.0 / (16.0 * 3.0));
  Tensor train = opt.apply_gradients({{grad, w}});
  Tensor init = g.global_variables_initializer();
  Session sess(g);
  sess.run(init);
  for (int i = 0; i < steps; ++i) sess.run(train);
  return sess.variable_value(w);
}

// The same with nabla::optim and eager autograd.
Tensor eager_steps(const Problem& p, const std::function<std::unique_ptr<optim::Optimizer>(Tensor)>& make,
                   int steps) {
  Tensor w = p.w0.clone().requires_grad_();
  auto opt = make(w);
  for (int i = 0; i < steps; ++i) {
    opt->zero_grad();
    mse_loss(matmul(p.x, w), p.y).backward();
    opt->step();
  }
  return w.detach();
}

TEST(GraphOptimizers, GradientDescentStepsEqualEagerSgd) {
  Problem p;
  GradientDescentOptimizer opt(0.1);
  Tensor graph_w = graph_steps(p, opt, 20);
  Tensor eager_w = eager_steps(p, [](Tensor w) { return std::make_unique<optim::SGD>(std::vector<Tensor>{w}, optim::Options{{"lr", 0.1}}); }, 20);
  assert_close(graph_w, eager_w, {.rtol = 0.0, .atol = 1e-12});
  EXPECT_GT(max_abs_diff(graph_w, p.w0), 0.1);  // it moved
}

TEST(GraphOptimizers, MomentumStepsEqualEagerSgdWithMomentum) {
  for (bool nesterov : {false, true}) {
    Problem p;
    MomentumOptimizer opt(0.05, 0.9, nesterov);
    Tensor graph_w = graph_steps(p, opt, 20);
    Tensor eager_w = eager_steps(
        p,
        [&](Tensor w) {
          return std::make_unique<optim::SGD>(
              std::vector<Tensor>{w},
              optim::Options{{"lr", 0.05}, {"momentum", 0.9}, {"nesterov", nesterov ? 1.0 : 0.0}});
        },
        20);
    assert_close(graph_w, eager_w, {.rtol = 0.0, .atol = 1e-12, .msg = ::nabla::detail::concat("nesterov ", nesterov)});
    EXPECT_GT(max_abs_diff(graph_w, p.w0), 0.1);
  }
}

TEST(GraphOptimizers, AdamStepsEqualEagerAdamWithPyTorchEpsilon) {
  Problem p;
  // A large epsilon makes TensorFlow's placement (eps added before the bias
  // correction) differ visibly from PyTorch's, which both sides use here.
  AdamOptimizer opt(0.05, 0.8, 0.99, 0.1);
  Tensor graph_w = graph_steps(p, opt, 25);
  Tensor eager_w = eager_steps(
      p,
      [](Tensor w) {
        return std::make_unique<optim::Adam>(std::vector<Tensor>{w},
                                             optim::Options{{"lr", 0.05}, {"beta1", 0.8}, {"beta2", 0.99}, {"eps", 0.1}});
      },
      25);
  assert_close(graph_w, eager_w, {.rtol = 0.0, .atol = 1e-12});
  EXPECT_GT(max_abs_diff(graph_w, p.w0), 0.1);
}

TEST(GraphOptimizers, AdamDefaultsAreTensorFlowsAndMatchEagerAdam) {
  Problem p;
  AdamOptimizer opt(0.01);
  Tensor graph_w = graph_steps(p, opt, 30);
  Tensor eager_w = eager_steps(
      p, [](Tensor w) { return std::make_unique<optim::Adam>(std::vector<Tensor>{w}, optim::Options{{"lr", 0.01}}); },
      30);
  assert_close(graph_w, eager_w, {.rtol = 0.0, .atol = 1e-12});
}

TEST(GraphOptimizers, AdamSlotsAreNonTrainableVariablesNamedAfterTheVariable) {
  Graph g;
  Tensor w = g.variable(init::zeros({2, 2}, kFloat64), "w1");
  Tensor b = Tensor();
  {
    auto s = g.name_scope("dense");
    b = g.variable(init::zeros({2}, kFloat64), "bias");
  }
  AdamOptimizer opt;
  auto scope = g.name_scope("train");  // slots are named after their variable, not this scope
  Tensor step = opt.apply_gradients({{ones({2, 2}, kFloat64), w}, {ones({2}, kFloat64), b}});
  EXPECT_EQ(g.node_of(step).name, "train/Adam");
  std::vector<std::string> trainable, all;
  for (const Tensor& v : g.variables(true)) trainable.push_back(g.node_of(v).name);
  for (const Tensor& v : g.variables()) all.push_back(g.node_of(v).name);
  EXPECT_EQ(trainable, (std::vector<std::string>{"w1", "dense/bias"}));
  EXPECT_EQ(all, (std::vector<std::string>{"w1", "dense/bias", "beta1_power", "beta2_power", "w1/Adam", "w1/Adam_1",
                                           "dense/bias/Adam", "dense/bias/Adam_1"}));
  // The slots start at zero and the powers at beta, by the global initializer.
  Session sess(g);
  sess.run(g.global_variables_initializer());
  EXPECT_EQ(sess.variable_value(g.variables()[4]).to_vector<double>(), std::vector<double>(4, 0.0));
  EXPECT_DOUBLE_EQ(sess.variable_value(g.variables()[2]).item<double>(), 0.9);
  sess.run(step);
  sess.run(step);
  EXPECT_NEAR(sess.variable_value(g.variables()[2]).item<double>(), 0.9 * 0.9 * 0.9, 1e-15);
  EXPECT_NEAR(sess.variable_value(g.variables()[3]).item<double>(), 0.999 * 0.999 * 0.999, 1e-15);
  // Constant gradient 1: m and v stay such that every step moves w by ~lr.
  EXPECT_NEAR(sess.variable_value(w).to_vector<double>()[0], -2e-3, 1e-9);
}

TEST(GraphOptimizers, UndefinedGradientsAreSkippedAndAllUndefinedIsAnError) {
  Graph g;
  Tensor a = g.variable(ones({2}, kFloat64), "a");
  Tensor b = g.variable(ones({2}, kFloat64), "b");
  GradientDescentOptimizer opt(0.5);
  Tensor step = opt.apply_gradients({{Tensor(), a}, {full({2}, 2.0, kFloat64), b}});
  Session sess(g);
  sess.run(g.global_variables_initializer());
  sess.run(step);
  EXPECT_EQ(sess.variable_value(a).to_vector<double>(), (std::vector<double>{1, 1}));
  EXPECT_EQ(sess.variable_value(b).to_vector<double>(), (std::vector<double>{0, 0}));
  expect_error(error_of([&] { opt.apply_gradients({{Tensor(), a}}); }),
               {"GradientDescentOptimizer::apply_gradients", "no gradients provided"});
}

TEST(GraphOptimizers, BadArgumentsAreClearErrors) {
  Graph g;
  Tensor w = g.variable(ones({2, 2}), "w");
  Tensor x = g.placeholder(kFloat32, {2, 2}, "x");
  GradientDescentOptimizer sgd(0.1);
  expect_error(error_of([&] { sgd.apply_gradients({{ones({2, 2}), x}}); }),
               {"GradientDescentOptimizer::apply_gradients", "'x'", "not a variable"});
  expect_error(error_of([&] { sgd.apply_gradients({{ones({3}), w}}); }),
               {"apply_gradients", "gradient of 'w'", "[3]", "expected float32 of shape [2, 2]"});
  expect_error(error_of([&] { sgd.apply_gradients({{ones({2, 2}), ones({2, 2})}}); }),
               {"apply_gradients", "not a graph value"});
  expect_error(error_of([&] { sgd.apply_gradients({{ones({2, 2}), w}, {ones({2, 2}), w}}); }),
               {"apply_gradients", "'w'", "listed twice"});
  expect_error(error_of([] { GradientDescentOptimizer(-1.0); }), {"GradientDescentOptimizer", "learning_rate", ">= 0"});
  expect_error(error_of([] { AdamOptimizer(1e-3, 1.0); }), {"AdamOptimizer", "beta1 must be in [0, 1), got 1"});
  expect_error(error_of([] { AdamOptimizer(1e-3, 0.9, 0.999, -1.0); }), {"AdamOptimizer", "epsilon"});
  expect_error(error_of([] { MomentumOptimizer(0.1, NAN); }), {"MomentumOptimizer", "momentum"});
}

}  // namespace
}  // namespace nabla::graph

// nn Modules in graphs: ModuleVariables makes a module's parameters graph
// variables while it lives, so forward() on a placeholder builds graph nodes
// that compute what eager forward() computes; copy_to_module writes values
// from a Session back.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"
#include "tests/support/error_message.h"

namespace nabla::nn {
namespace {

using nabla::testing::assert_close;

using nabla::testing::error_of;
using nabla::testing::expect_error;

std::shared_ptr<Sequential> make_model() {
  auto model = std::make_shared<Sequential>(Linear(6, 8), ReLU(), Linear(8, 3));
  model->to(kFloat64);
  return model;
}

TEST(ModuleVariables, SequentialForwardInAGraphEqualsEager) {
  auto model = make_model();
  Tensor xv = randn({5, 6}, kFloat64);
  Tensor eager = model->forward(xv).detach();
  graph::Graph g;
  Tensor x = g.placeholder(kFloat64, {5, 6}, "x");
  Tensor y;
  {
    ModuleVariables mv(g, *model);
    EXPECT_TRUE(model->parameters()[0].is_symbolic());
    y = model->forward(x);
    EXPECT_TRUE(y.is_symbolic());
    std::vector<std::string> names;
    for (const Tensor& v : g.variables(true)) names.push_back(g.node_of(v).name);
    EXPECT_EQ(names, (std::vector<std::string>{"0/weight", "0/bias", "2/weight", "2/bias"}));
    EXPECT_EQ(mv.variables()[0].first, "0.weight");
  }
  // Restored: the module computes eagerly again, with the same values.
  EXPECT_FALSE(model->parameters()[0].is_symbolic());
  EXPECT_TRUE(model->parameters()[0].requires_grad());
  assert_close(model->forward(xv).detach(), eager, {.rtol = 0.0, .atol = 0.0});
  graph::Session sess(g);
  sess.run(g.global_variables_initializer());
  assert_close(sess.run(y, {{x, xv}}), eager, {.rtol = 0.0, .atol = 1e-12});
}

TEST(ModuleVariables, CopyToModuleWritesSessionValuesIntoTheParameters) {
  auto model = make_model();
  Tensor weight = model->named_parameters()[0].second;  // a user's handle sees the copy
  Tensor old_weight = weight.detach().clone();
  Tensor old_bias = model->named_parameters()[1].second.detach().clone();
  graph::Graph g;
  graph::Session sess(g);
  {
    ModuleVariables mv(g, *model);
    Tensor bump = graph::assign_add(mv.variable("0.weight"), ones({8, 6}, kFloat64));
    sess.run(g.global_variables_initializer());
    sess.run(bump);
    mv.copy_to_module(sess);  // while alive: written to the parameter's own data
  }
  assert_close(weight.detach(), old_weight + 1.0, {.rtol = 0.0, .atol = 1e-15});
  assert_close(model->named_parameters()[1].second.detach(), old_bias, {.rtol = 0.0, .atol = 0.0});
  EXPECT_TRUE(weight.requires_grad());
  EXPECT_FALSE(weight.grad().defined());
}

TEST(ModuleVariables, FrozenParametersBecomeNonTrainableVariables) {
  auto model = make_model();
  (*model)[0]->requires_grad_(false);
  graph::Graph g;
  ModuleVariables mv(g, *model);
  EXPECT_EQ(mv.trainable_variables().size(), 2u);
  EXPECT_EQ(g.variables(true).size(), 2u);
  EXPECT_EQ(g.variables().size(), 4u);
  expect_error(error_of([&] { mv.variable("5.weight"); }),
               {"ModuleVariables::variable", "'5.weight'", "0.weight, 0.bias, 2.weight, 2.bias"});
}

TEST(ModuleVariables, ASecondWrapWhileTheFirstLivesIsAnError) {
  auto model = make_model();
  graph::Graph g;
  ModuleVariables mv(g, *model);
  graph::Graph g2;
  expect_error(error_of([&] { ModuleVariables again(g2, *model); }),
               {"ModuleVariables", "'0.weight'", "already symbolic"});
  EXPECT_EQ(g2.num_nodes(), 0);  // nothing was made
}

TEST(ModuleVariables, CopyToModuleBeforeInitializationIsAnErrorThatChangesNothing) {
  auto model = make_model();
  Tensor old = model->parameters()[0].detach().clone();
  graph::Graph g;
  graph::Session sess(g);
  {
    ModuleVariables mv(g, *model);
    expect_error(error_of([&] { mv.copy_to_module(sess); }), {"not initialized", "0/weight"});
  }
  assert_close(model->parameters()[0].detach(), old, {.rtol = 0.0, .atol = 0.0});
}

}  // namespace
}  // namespace nabla::nn

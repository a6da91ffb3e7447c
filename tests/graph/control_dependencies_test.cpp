// Graph::control_dependencies: nodes made inside the scope get control inputs,
// so running them first runs the dependencies — and only then.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "nabla/nabla.h"
#include "tests/support/error_message.h"

namespace nabla::graph {
namespace {

using nabla::testing::error_of;
using nabla::testing::expect_error;

TEST(GraphControlDependencies, AnOpInsideSeesTheUpdateWhichRunsOnlyWhenNeeded) {
  Graph g;
  Tensor v = g.variable(zeros({}, kFloat64), "v");
  Tensor inc = assign_add(v, ones({}, kFloat64));
  Tensor y;
  {
    auto deps = g.control_dependencies({inc});
    y = v * 2.0;  // runs after inc
  }
  Tensor z = v * 3.0;  // outside the scope: no dependency
  Session sess(g);
  sess.run(g.global_variables_initializer());
  EXPECT_EQ(sess.run(y).item<double>(), 2.0);
  EXPECT_EQ(sess.run(y).item<double>(), 4.0);
  // z does not run the increment: v stays 2.
  EXPECT_EQ(sess.run(z).item<double>(), 6.0);
  EXPECT_EQ(sess.run(z).item<double>(), 6.0);
  EXPECT_EQ(sess.variable_value(v).item<double>(), 2.0);
  // y's node lists the assign as its control input; z's lists none.
  EXPECT_EQ(g.node_of(y).control_inputs, std::vector<int>{value_of(inc)->ref.node});
  EXPECT_TRUE(g.node_of(z).control_inputs.empty());
}

TEST(GraphControlDependencies, NestedScopesAccumulateAndAcceptNoValueNodes) {
  Graph g;
  Tensor a = g.variable(zeros({}, kFloat64), "a");
  Tensor b = g.variable(zeros({}, kFloat64), "b");
  Tensor inc_a = assign_add(a, ones({}, kFloat64));
  Tensor inc_b = assign_add(b, full({}, 10.0, kFloat64));
  Tensor both = group({inc_a});  // a no-value node as a dependency
  Tensor inner, outer;
  {
    auto c1 = g.control_dependencies({both});
    outer = a.clone();  // TensorFlow's identity: a node that reads a after inc_a
    {
      auto c2 = g.control_dependencies({inc_b});
      inner = a + b;
    }
  }
  EXPECT_EQ(g.node_of(outer).control_inputs.size(), 1u);
  EXPECT_EQ(g.node_of(inner).control_inputs.size(), 2u);
  Session sess(g);
  sess.run(g.global_variables_initializer());
  EXPECT_EQ(sess.run(outer).item<double>(), 1.0);        // inc_a ran
  EXPECT_EQ(sess.variable_value(b).item<double>(), 0.0);  // inc_b did not
  EXPECT_EQ(sess.run(inner).item<double>(), 2.0 + 10.0);  // both ran
  // A group made inside the scope runs its dependency too.
  Tensor noop;
  {
    auto c = g.control_dependencies({inc_b});
    noop = group({a});
  }
  sess.run(noop);
  EXPECT_EQ(sess.variable_value(b).item<double>(), 20.0);
}

TEST(GraphControlDependencies, GradientsBuiltInsideRunTheDependency) {
  // Gradient nodes are ordinary nodes: inside the scope they depend on it too.
  Graph g;
  Tensor x = g.placeholder(kFloat64, {2}, "x");
  Tensor counter = g.variable(zeros({}, kFloat64), "counter");
  Tensor tick = assign_add(counter, ones({}, kFloat64));
  Tensor dx;
  {
    auto c = g.control_dependencies({tick});
    dx = gradients(sum(x * x), {x})[0];
  }
  Session sess(g);
  sess.run(g.global_variables_initializer());
  Tensor got = sess.run(dx, {{x, tensor({1.0, -2.0}, kFloat64)}});
  EXPECT_EQ(got.to_vector<double>(), (std::vector<double>{2.0, -4.0}));
  EXPECT_EQ(sess.variable_value(counter).item<double>(), 1.0);
}

TEST(GraphControlDependencies, BadDependenciesAreClearErrors) {
  Graph g, other;
  Tensor foreign = other.placeholder(kFloat64, {2}, "foreign");
  expect_error(error_of([&] { auto c = g.control_dependencies({ones({2})}); }),
               {"Graph::control_dependencies", "dependency 0", "not a graph value", "concrete"});
  expect_error(error_of([&] { auto c = g.control_dependencies({foreign}); }),
               {"Graph::control_dependencies", "'foreign'", "another graph"});
}

}  // namespace
}  // namespace nabla::graph

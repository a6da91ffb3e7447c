// Graph::seed (issue 14, ergonomics): TensorFlow's graph-level seed
// (tf.set_random_seed). With it every Session of a graph draws the same
// initial values and the same dropout masks, whatever the global generator
// did in between; without it each Session draws afresh.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nabla/nabla.h"
#include "tests/support/same_values.h"

namespace nabla::graph {
namespace {

using nabla::testing::same_values;

struct Model {
  Graph g;
  Tensor w1, w2, b, init;
};

Model make_model(std::optional<uint64_t> seed) {
  Model m;
  if (seed) m.g.seed(*seed);
  m.w1 = m.g.variable(init::xavier_uniform({20, 10}), "w1");
  m.w2 = m.g.variable(init::random_normal({10, 5}, 0.0, 0.1), "w2");
  m.b = m.g.variable(init::truncated_normal({5}), "b");
  m.init = m.g.global_variables_initializer();
  return m;
}

std::vector<Tensor> initial_values(const Model& m) {
  Session sess(m.g);
  sess.run(m.init);
  return {sess.variable_value(m.w1), sess.variable_value(m.w2), sess.variable_value(m.b)};
}

TEST(GraphSeed, EverySessionOfASeededGraphDrawsTheSameInitialValues) {
  Model m = make_model(42);
  EXPECT_EQ(m.g.seed(), std::optional<uint64_t>(42));
  manual_seed(1);
  auto first = initial_values(m);
  manual_seed(2);  // the global generator does not matter any more
  normal(0.0, 1.0, {100});
  auto second = initial_values(m);
  for (std::size_t i = 0; i < first.size(); ++i) EXPECT_TRUE(same_values(first[i], second[i])) << i;
  // Each variable has a stream of its own: same shape and distribution, different values.
  Model twin = make_model(42);
  auto again = initial_values(twin);  // another graph built the same way: same node ids, same values
  for (std::size_t i = 0; i < first.size(); ++i) EXPECT_TRUE(same_values(first[i], again[i])) << i;
  EXPECT_FALSE(same_values(first[1].flatten().slice(0, 0, 5), first[1].flatten().slice(0, 5, 10)));
}

TEST(GraphSeed, AnotherSeedDrawsOtherValuesWithTheSameDistribution) {
  auto a = initial_values(make_model(1));
  auto b = initial_values(make_model(2));
  EXPECT_FALSE(same_values(a[0], b[0]));
  const double limit = std::sqrt(6.0 / 30.0);
  EXPECT_LE(b[0].abs().max().item<double>(), limit);
  EXPECT_LE(b[2].abs().max().item<double>(), 2.0);  // truncated at 2 stddev
}

TEST(GraphSeed, WithoutASeedEachSessionDrawsAfresh) {
  Model m = make_model(std::nullopt);
  EXPECT_FALSE(m.g.seed().has_value());
  auto first = initial_values(m);
  auto second = initial_values(m);
  EXPECT_FALSE(same_values(first[0], second[0]));
  // ... from the global generator: manual_seed repeats a Session's draws.
  manual_seed(7);
  auto x = initial_values(m);
  manual_seed(7);
  auto y = initial_values(m);
  EXPECT_TRUE(same_values(x[0], y[0]));
}

TEST(GraphSeed, RerunningTheInitializerInOneSessionDrawsTheNextValues) {
  // As in TensorFlow: a seeded op's stream goes on within a Session and
  // starts over in a new one.
  Model m = make_model(3);
  Session s1(m.g), s2(m.g);
  s1.run(m.init);
  Tensor first = s1.variable_value(m.w1).clone();
  s1.run(m.init);
  Tensor second = s1.variable_value(m.w1).clone();
  EXPECT_FALSE(same_values(first, second));
  s2.run(m.init);
  EXPECT_TRUE(same_values(s2.variable_value(m.w1), first));
  s2.run(m.init);
  EXPECT_TRUE(same_values(s2.variable_value(m.w1), second));
}

TEST(GraphSeed, DropoutMasksRepeatAcrossSessions) {
  Graph g;
  g.seed(11);
  Tensor x = g.placeholder(kFloat32, {4, 50}, "x");
  Tensor y = dropout(x, 0.5, true);
  Tensor feed = ones({4, 50});
  auto masks = [&] {
    Session sess(g);
    Tensor a = sess.run(y, {{x, feed}});
    Tensor b = sess.run(y, {{x, feed}});
    return std::make_pair(a, b);
  };
  manual_seed(100);
  auto [a1, b1] = masks();
  manual_seed(200);
  auto [a2, b2] = masks();
  EXPECT_TRUE(same_values(a1, a2));
  EXPECT_TRUE(same_values(b1, b2));
  EXPECT_FALSE(same_values(a1, b1));  // each run of one Session draws a new mask
  EXPECT_GT(a1.sum().item<double>(), 0.0);
  // Seeded draws leave the global generator alone.
  manual_seed(5);
  GeneratorState before = default_generator().get_state();
  masks();
  EXPECT_EQ(default_generator().get_state(), before);
}

TEST(GraphSeed, SetOnACondBranchIsAnError) {
  Graph g;
  Tensor p = g.placeholder(kBool, {}, "p");
  std::string msg;
  cond(
      p,
      [&] {
        Tensor inner = p.to(kFloat32).reshape({1});  // a value of the branch's own graph
        try {
          Graph::of(inner).seed(1);
        } catch (const Error& e) {
          msg = e.what();
        }
        return std::vector<Tensor>{inner};
      },
      [] { return std::vector<Tensor>{ones({1})}; });
  EXPECT_NE(msg.find("Graph::seed: this is the true branch of cond"), std::string::npos) << msg;
  EXPECT_NE(msg.find("set the seed on the graph that holds it"), std::string::npos) << msg;
  EXPECT_FALSE(g.seed().has_value());
}

}  // namespace
}  // namespace nabla::graph

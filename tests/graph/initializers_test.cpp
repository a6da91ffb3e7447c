// Variable initializers: drawn by the Session at each initialization from the
// seeded generator, with the distribution's statistics, TensorFlow's fans and
// defaults, and clear errors for bad arguments.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "nabla/nabla.h"
#include "tests/support/error_message.h"
#include "tests/support/same_values.h"
#include "tests/support/sample_stats.h"

namespace nabla::graph {
namespace {

using nabla::testing::error_of;
using nabla::testing::expect_error;
using nabla::testing::same_values;
using nabla::testing::sample_stats;

// One initialization of a fresh variable made from `init`.
Tensor draw_in_session(const Initializer& init) {
  Graph g;
  Tensor v = g.variable(init, "v");
  Session sess(g);
  sess.run(g.global_variables_initializer());
  return sess.variable_value(v);
}

TEST(GraphInitializers, RandomNormalHasItsMeanAndStddev) {
  Tensor t = draw_in_session(init::random_normal({1000, 100}, 0.5, 2.0));
  EXPECT_EQ(t.dtype(), kFloat32);
  EXPECT_EQ(t.sizes(), Shape({1000, 100}));
  auto s = sample_stats(t);
  // 1e5 samples: the mean's standard error is 2 / sqrt(1e5) ~ 0.0063.
  EXPECT_NEAR(s.mean, 0.5, 0.04);
  EXPECT_NEAR(s.std, 2.0, 0.03);
}

TEST(GraphInitializers, RandomNormalDefaultsAreTensorFlowsMeanZeroStddevOne) {
  Initializer i = init::random_normal({3});
  EXPECT_EQ(i.a, 0.0);
  EXPECT_EQ(i.b, 1.0);
  Initializer u = init::random_uniform({3});
  EXPECT_EQ(u.a, 0.0);
  EXPECT_EQ(u.b, 1.0);
}

TEST(GraphInitializers, RandomUniformStaysInItsRangeWithUniformMoments) {
  Tensor t = draw_in_session(init::random_uniform({200, 500}, -3.0, 1.0, kFloat64));
  EXPECT_EQ(t.dtype(), kFloat64);
  auto s = sample_stats(t);
  EXPECT_GE(s.min, -3.0);
  EXPECT_LT(s.max, 1.0);
  EXPECT_NEAR(s.mean, -1.0, 0.02);
  EXPECT_NEAR(s.std, 4.0 / std::sqrt(12.0), 0.01);
}

TEST(GraphInitializers, XavierUniformUsesTheGlorotLimit) {
  const double limit = std::sqrt(6.0 / (1000.0 + 100.0));
  Initializer i = init::xavier_uniform({1000, 100});
  EXPECT_DOUBLE_EQ(i.b, limit);
  EXPECT_DOUBLE_EQ(i.a, -limit);
  Initializer gl = init::glorot_uniform({1000, 100});  // the same, under TensorFlow's name
  EXPECT_EQ(gl.a, i.a);
  EXPECT_EQ(gl.b, i.b);
  Tensor t = draw_in_session(i);
  auto s = sample_stats(t);
  EXPECT_GE(s.min, -limit);
  EXPECT_LE(s.max, limit);
  EXPECT_GT(s.max, 0.99 * limit);  // the whole range is used
  EXPECT_NEAR(s.mean, 0.0, 0.002);
  EXPECT_NEAR(s.std, limit / std::sqrt(3.0), 0.01 * limit);
}

TEST(GraphInitializers, XavierNormalIsAPlainNormalWithTheGlorotVariance) {
  const double stddev = std::sqrt(2.0 / 1100.0);
  Tensor t = draw_in_session(init::xavier_normal({1000, 100}));
  auto s = sample_stats(t);
  EXPECT_NEAR(s.mean, 0.0, 0.002);
  EXPECT_NEAR(s.std, stddev, 0.015 * stddev);
  EXPECT_GT(s.max, 3.5 * stddev);  // not truncated: 1e5 normal samples reach past 3.5 sigma
}

TEST(GraphInitializers, GlorotNormalIsTruncatedYetHasTheGlorotStddev) {
  const double target = std::sqrt(2.0 / 1100.0);
  const double param = target / 0.87962566103423978;
  Tensor t = draw_in_session(init::glorot_normal({1000, 100}));
  auto s = sample_stats(t);
  EXPECT_NEAR(s.std, target, 0.015 * target);
  EXPECT_LE(s.max, 2.0 * param);
  EXPECT_GE(s.min, -2.0 * param);
}

TEST(GraphInitializers, TruncatedNormalRedrawsBeyondTwoStddev) {
  Tensor t = draw_in_session(init::truncated_normal({100000}, 1.0, 0.5));
  auto s = sample_stats(t);
  EXPECT_GE(s.min, 0.0);
  EXPECT_LE(s.max, 2.0);
  EXPECT_NEAR(s.mean, 1.0, 0.01);
  EXPECT_NEAR(s.std, 0.5 * 0.87962566103423978, 0.01);
  EXPECT_GT(s.max, 1.99);  // truncated, not clipped: values come close to the bound
}

TEST(GraphInitializers, ConstantsFillExactlyInAnyDtype) {
  EXPECT_EQ(draw_in_session(init::zeros({2, 3})).to_vector<float>(), std::vector<float>(6, 0.0f));
  EXPECT_EQ(draw_in_session(init::ones({4}, kFloat64)).to_vector<double>(), std::vector<double>(4, 1.0));
  Tensor c = draw_in_session(init::constant({3}, 7.0, kInt64));
  EXPECT_EQ(c.dtype(), kInt64);
  EXPECT_EQ(c.to_vector<int64_t>(), (std::vector<int64_t>{7, 7, 7}));
}

TEST(GraphInitializers, FansFollowTensorFlowsKernelLayout) {
  Fans dense = compute_fans({1000, 100});
  EXPECT_EQ(dense.in, 1000);
  EXPECT_EQ(dense.out, 100);
  Fans conv = compute_fans({3, 5, 16, 32});  // [kh, kw, in, out]
  EXPECT_EQ(conv.in, 16 * 15);
  EXPECT_EQ(conv.out, 32 * 15);
  Fans vec = compute_fans({7});
  EXPECT_EQ(vec.in, 7);
  EXPECT_EQ(vec.out, 7);
  EXPECT_EQ(compute_fans({}).in, 1);
  EXPECT_DOUBLE_EQ(init::xavier_uniform({3, 5, 16, 32}).b, std::sqrt(6.0 / (15.0 * 48.0)));
}

TEST(GraphInitializers, EachInitializationRedrawsAndRunsBetweenKeepTheValue) {
  Graph g;
  Tensor w = g.variable(init::random_normal({50}), "w");
  Tensor init = g.global_variables_initializer();
  Session sess(g);
  sess.run(init);
  Tensor first = sess.run(w);
  EXPECT_TRUE(same_values(sess.run(w), first));  // reading does not redraw
  sess.run(init);
  Tensor second = sess.run(w);
  EXPECT_FALSE(same_values(second, first));
  // A second session draws its own values too.
  Session other(g);
  other.run(init);
  EXPECT_FALSE(same_values(other.run(w), second));
}

TEST(GraphInitializers, TwoVariablesOfOneInitializationGetDifferentDraws) {
  Graph g;
  Tensor a = g.variable(init::random_uniform({20}), "a");
  Tensor b = g.variable(init::random_uniform({20}), "b");
  Session sess(g);
  sess.run(g.global_variables_initializer());
  EXPECT_FALSE(same_values(sess.run(a), sess.run(b)));
}

TEST(GraphInitializers, ManualSeedMakesDrawsReproducibleAndEqualToEagerOnes) {
  Graph g;
  Tensor w = g.variable(init::random_normal({30, 4}, 0.5, 2.0), "w");
  Tensor init = g.global_variables_initializer();
  Session sess(g);
  manual_seed(1234);
  sess.run(init);
  Tensor a = sess.run(w);
  manual_seed(1234);
  sess.run(init);
  Tensor b = sess.run(w);
  EXPECT_TRUE(same_values(a, b));
  // The Session draws from nabla's generator, as eager normal() does.
  manual_seed(1234);
  EXPECT_TRUE(same_values(a, normal(0.5, 2.0, {30, 4})));
}

TEST(GraphInitializers, ConcreteInitialValuesStillWorkBesideInitializers) {
  Graph g;
  Tensor fixed = g.variable(full({2}, 3.0), "fixed");
  Tensor drawn = g.variable(init::ones({2}), "drawn");
  Tensor sum = fixed + drawn;
  Session sess(g);
  sess.run(g.global_variables_initializer());
  EXPECT_EQ(sess.run(sum).to_vector<float>(), (std::vector<float>{4, 4}));
  EXPECT_FALSE(g.node_of(drawn).value.defined());
  EXPECT_TRUE(g.node_of(drawn).init.has_value());
  EXPECT_EQ(g.node_of(drawn).init->name, "ones");
}

TEST(GraphInitializers, DescribeNamesTheInitializerAndItsDistribution) {
  std::string d = init::random_uniform({2, 3}, -1.0, 1.0).describe();
  expect_error(d, {"random_uniform", "float32", "[2, 3]", "U[-1, 1)"});
}

TEST(GraphInitializers, BadArgumentsAreClearErrors) {
  expect_error(error_of([] { init::random_normal({2, -1}); }),
               {"graph::init::random_normal", "[2, -1]", "negative dim"});
  expect_error(error_of([] { init::random_normal({2}, 0.0, -1.0); }),
               {"graph::init::random_normal", "stddev must be >= 0", "-1"});
  expect_error(error_of([] { init::random_uniform({2}, 1.0, 0.0); }),
               {"graph::init::random_uniform", "minval 1 is greater than maxval 0"});
  expect_error(error_of([] { init::xavier_uniform({4, 4}, kInt32); }),
               {"graph::init::xavier_uniform", "int32", "not a floating-point dtype"});
  expect_error(error_of([] { init::xavier_uniform({0, 0}); }),
               {"graph::init::xavier_uniform", "fan_in + fan_out = 0"});
  expect_error(error_of([] { init::random_normal({2}, NAN); }), {"graph::init::random_normal", "finite"});
  Graph g;
  expect_error(error_of([&] { g.variable(init::zeros({2}), "a/b"); }), {"Graph::variable", "'a/b'"});
  Initializer hand_made;  // e.g. read from a file: checked when used
  hand_made.kind = Initializer::Kind::Normal;
  hand_made.b = -2.0;
  hand_made.shape = {3};
  expect_error(error_of([&] { g.variable(hand_made, "w"); }), {"Graph::variable 'w'", "stddev must be >= 0, got -2"});
  EXPECT_EQ(g.num_nodes(), 0);
}

}  // namespace
}  // namespace nabla::graph

// nn::init and the layers' default initialization: sample bounds, means and
// standard deviations against PyTorch's formulas.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "nabla/nabla.h"
#include "tests/support/sample_stats.h"

namespace {

using namespace nabla;

using Stats = nabla::testing::SampleStats;
using nabla::testing::sample_stats;

// Uniform(-b, b): mean 0, std b / sqrt(3), samples within the bounds.
void expect_uniform(const Tensor& t, double b) {
  Stats s = sample_stats(t);
  double n = static_cast<double>(t.numel()), sd = b / std::sqrt(3.0);
  EXPECT_LE(s.max, b);
  EXPECT_GE(s.min, -b);
  EXPECT_GT(s.max, 0.95 * b);
  EXPECT_NEAR(s.mean, 0.0, 5 * sd / std::sqrt(n));
  EXPECT_NEAR(s.std, sd, 0.03 * sd);
}

TEST(NnInit, LinearDefaultIsUniformOneOverSqrtFanIn) {
  manual_seed(0);
  nn::Linear lin(1000, 100);
  expect_uniform(lin.weight, 1.0 / std::sqrt(1000.0));
  Stats b = sample_stats(lin.bias);
  EXPECT_LE(b.max, 1.0 / std::sqrt(1000.0));
  EXPECT_GE(b.min, -1.0 / std::sqrt(1000.0));
}

TEST(NnInit, Conv2dDefaultUsesReceptiveField) {
  manual_seed(0);
  nn::Conv2d conv(16, 32, 3);
  EXPECT_EQ(conv.weight.sizes(), Shape({32, 16, 3, 3}));
  expect_uniform(conv.weight, 1.0 / std::sqrt(16.0 * 9));
  Stats b = sample_stats(conv.bias);
  EXPECT_LE(b.max, 1.0 / 12.0);
  EXPECT_GE(b.min, -1.0 / 12.0);
  EXPECT_EQ(conv.forward(randn({2, 16, 8, 8})).sizes(), Shape({2, 32, 6, 6}));
}

TEST(NnInit, XavierAndKaiming) {
  manual_seed(3);
  Tensor w = empty({300, 500});
  nn::init::xavier_uniform_(w, 2.0);
  expect_uniform(w, 2.0 * std::sqrt(6.0 / 800));
  nn::init::xavier_normal_(w);
  EXPECT_NEAR(sample_stats(w).std, std::sqrt(2.0 / 800), 0.02 * std::sqrt(2.0 / 800));
  nn::init::kaiming_uniform_(w, 0.0, "fan_in", "relu");
  expect_uniform(w, std::sqrt(2.0) * std::sqrt(3.0 / 500));
  nn::init::kaiming_normal_(w, 0.0, "fan_out", "relu");
  EXPECT_NEAR(sample_stats(w).std, std::sqrt(2.0 / 300), 0.02 * std::sqrt(2.0 / 300));
  EXPECT_NEAR(sample_stats(w).mean, 0.0, 0.01 * std::sqrt(2.0 / 300));
  Tensor d = empty({200, 200}, kFloat64);
  nn::init::normal_(d, 1.0, 0.5);
  EXPECT_NEAR(sample_stats(d).mean, 1.0, 0.01);
  EXPECT_NEAR(sample_stats(d).std, 0.5, 0.01);
}

TEST(NnInit, GainsFansAndConstants) {
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("tanh"), 5.0 / 3.0);
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("relu"), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("leaky_relu"), std::sqrt(2.0 / (1 + 1e-4)));
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("leaky_relu", std::sqrt(5.0)), std::sqrt(1.0 / 3.0));
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("conv2d"), 1.0);
  EXPECT_THROW(nn::init::calculate_gain("swish"), Error);
  EXPECT_EQ(nn::init::calculate_fan_in_and_fan_out(empty({8, 4, 3, 3})), (std::pair<int64_t, int64_t>{36, 72}));
  EXPECT_THROW(nn::init::xavier_uniform_(empty({5})), Error);
  Tensor p = zeros({3}, requires_grad());
  nn::init::constant_(p, 2.5);
  EXPECT_FLOAT_EQ(p.at<float>({1}), 2.5f);
  EXPECT_TRUE(p.is_leaf());
  nn::init::ones_(p);
  EXPECT_FLOAT_EQ(p.sum().item<float>(), 3.0f);
}

}  // namespace

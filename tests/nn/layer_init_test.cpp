// Default initialization of the layers added beside Linear/Conv2d, and
// nn::init::orthogonal_ and the kaiming/xavier variants: sample bounds, means
// and standard deviations against PyTorch's formulas, on layers large enough
// for tight sampling tolerances.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "nabla/nabla.h"
#include "tests/support/sample_stats.h"

namespace {

using namespace nabla;

using Stats = nabla::testing::SampleStats;
using nabla::testing::sample_stats;

// U(-b, b): inside the bounds, reaching near them, mean 0, std b / sqrt(3).
void expect_uniform_reaching_bounds(const Tensor& t, double b) {
  Stats s = sample_stats(t);
  double n = static_cast<double>(t.numel()), sd = b / std::sqrt(3.0);
  EXPECT_LE(s.max, b);
  EXPECT_GE(s.min, -b);
  EXPECT_GT(s.max, 0.9 * b);
  EXPECT_LT(s.min, -0.9 * b);
  EXPECT_NEAR(s.mean, 0.0, 5 * sd / std::sqrt(n));
  EXPECT_NEAR(s.std, sd, 0.05 * sd);
}

// N(mean, sd^2) within sampling tolerance (n >= 10^4).
void expect_normal(const Tensor& t, double mean, double sd) {
  Stats s = sample_stats(t);
  double n = static_cast<double>(t.numel());
  EXPECT_NEAR(s.mean, mean, 5 * sd / std::sqrt(n));
  EXPECT_NEAR(s.std, sd, 0.03 * sd);
}

void expect_all(const Tensor& t, double v) {
  for (double x : t.to_vector<double>()) ASSERT_EQ(x, v);
}

TEST(NnLayerInit, Conv1dIsUniformOneOverSqrtFanIn) {
  manual_seed(1);
  nn::Conv1d conv(64, 128, 5);
  EXPECT_EQ(conv.weight.sizes(), Shape({128, 64, 5}));
  expect_uniform_reaching_bounds(conv.weight, 1.0 / std::sqrt(64.0 * 5));
  Stats b = sample_stats(conv.bias);
  EXPECT_LE(b.max, 1.0 / std::sqrt(320.0));
  EXPECT_GE(b.min, -1.0 / std::sqrt(320.0));
}

TEST(NnLayerInit, Conv2dWithPairsUsesBothKernelDims) {
  manual_seed(2);
  nn::Conv2d conv(32, 64, {3, 5}, {1, 2}, {1, 2});
  EXPECT_EQ(conv.weight.sizes(), Shape({64, 32, 3, 5}));
  expect_uniform_reaching_bounds(conv.weight, 1.0 / std::sqrt(32.0 * 15));
}

TEST(NnLayerInit, ConvTranspose2dFanInIsOutChannelsTimesKernel) {
  manual_seed(3);
  nn::ConvTranspose2d conv(64, 32, 3, 2, 0, 0, 2);  // weight [64, 32 / 2, 3, 3]
  EXPECT_EQ(conv.weight.sizes(), Shape({64, 16, 3, 3}));
  expect_uniform_reaching_bounds(conv.weight, 1.0 / std::sqrt(16.0 * 9));  // PyTorch: fan_in from weight dims 1..
  Stats b = sample_stats(conv.bias);
  EXPECT_LE(b.max, 1.0 / 12.0);
  EXPECT_GE(b.min, -1.0 / 12.0);
}

TEST(NnLayerInit, EmbeddingIsStandardNormalWithZeroPaddingRow) {
  manual_seed(4);
  nn::Embedding emb(2000, 32, 7);
  expect_normal(emb.weight, 0.0, 1.0);
  expect_all(emb.weight.select(0, 7), 0.0);
}

TEST(NnLayerInit, NormalizationLayersStartAsIdentity) {
  nn::BatchNorm1d bn(6);
  expect_all(bn.weight, 1.0);
  expect_all(bn.bias, 0.0);
  expect_all(bn.running_mean, 0.0);
  expect_all(bn.running_var, 1.0);
  EXPECT_EQ(bn.num_batches_tracked.item<int64_t>(), 0);
  nn::LayerNorm ln(std::vector<int64_t>{3, 4});
  EXPECT_EQ(ln.weight.sizes(), Shape({3, 4}));
  expect_all(ln.weight, 1.0);
  expect_all(ln.bias, 0.0);
  nn::GroupNorm gn(2, 6);
  expect_all(gn.weight, 1.0);
  expect_all(gn.bias, 0.0);
}

TEST(NnLayerInit, KaimingFanModesAndGains) {
  manual_seed(5);
  Tensor w = empty({200, 100, 3});  // fan_in 300, fan_out 600
  nn::init::kaiming_uniform_(w, 0.2, "fan_out", "leaky_relu");
  expect_uniform_reaching_bounds(w, std::sqrt(2.0 / 1.04) * std::sqrt(3.0 / 600));
  nn::init::kaiming_normal_(w, 0.0, "fan_in", "tanh");
  expect_normal(w, 0.0, 5.0 / 3.0 / std::sqrt(300.0));
  nn::init::xavier_normal_(w, nn::init::calculate_gain("tanh"));
  expect_normal(w, 0.0, 5.0 / 3.0 * std::sqrt(2.0 / 900));
  nn::init::xavier_uniform_(w);
  expect_uniform_reaching_bounds(w, std::sqrt(6.0 / 900));
  nn::init::uniform_(w, -0.5, 2.0);
  Stats s = sample_stats(w);
  EXPECT_GE(s.min, -0.5);
  EXPECT_LE(s.max, 2.0);
  EXPECT_NEAR(s.mean, 0.75, 0.02);
  nn::init::zeros_(w);
  expect_all(w, 0.0);
  EXPECT_THROW(nn::init::kaiming_uniform_(w, 0.0, "fan_avg"), Error);
}

// max |A - I| for A = W W^T (rows) or W^T W (columns).
double gram_error(const Tensor& w, bool rows) {
  Tensor a = rows ? matmul(w, w.t()) : matmul(w.t(), w);
  return (a - eye(a.size(0), std::nullopt, kFloat64)).abs().max().item<double>();
}

TEST(NnLayerInit, OrthogonalRowsOrColumnsAreOrthonormal) {
  manual_seed(6);
  Tensor tall = empty({50, 30}, kFloat64), wide = empty({30, 50}, kFloat64), square = empty({40, 40}, kFloat64);
  nn::init::orthogonal_(tall);
  nn::init::orthogonal_(wide);
  nn::init::orthogonal_(square, 2.0);
  EXPECT_LT(gram_error(tall, false), 1e-12);
  EXPECT_LT(gram_error(wide, true), 1e-12);
  EXPECT_LT(gram_error(square / 2.0, true), 1e-12);
  EXPECT_LT(gram_error(square / 2.0, false), 1e-12);
  // A conv weight is flattened to [out, in * k * k]; float32 works too.
  nn::Conv2d conv(2, 8, 3);
  nn::init::orthogonal_(conv.weight);
  EXPECT_LT(gram_error(conv.weight.reshape({8, 18}).to(kFloat64), true), 1e-5);
  EXPECT_TRUE(conv.weight.is_leaf());
  EXPECT_THROW(nn::init::orthogonal_(empty({5})), Error);
}

// PyTorch multiplies Q by sign(diag(R)), so Q's first column is the drawn
// normal matrix's first column normalized (R[0][0] > 0); without the sign
// correction a Householder QR returns its negation.
TEST(NnLayerInit, OrthogonalHasPyTorchsSignCorrection) {
  manual_seed(7);
  Tensor a = normal(0.0, 1.0, {6, 4}, kFloat64);
  manual_seed(7);
  Tensor q = nn::init::orthogonal_(empty({6, 4}, kFloat64));
  Tensor col = a.select(1, 0);
  Tensor expected = col / col.pow(2.0).sum().sqrt();
  EXPECT_LT((q.select(1, 0) - expected).abs().max().item<double>(), 1e-12);
  // Haar-distributed: entries have mean 0 and variance 1 / n over many draws.
  double sum = 0, sum2 = 0;
  const int draws = 400;
  for (int i = 0; i < draws; ++i) {
    double v = nn::init::orthogonal_(empty({4, 4}, kFloat64)).at<double>({0, 0});
    sum += v;
    sum2 += v * v;
  }
  EXPECT_NEAR(sum / draws, 0.0, 5 * 0.5 / std::sqrt(draws));
  EXPECT_NEAR(sum2 / draws, 0.25, 0.05);
}

}  // namespace

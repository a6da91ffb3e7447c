// Gradients at edges that went wrong before (issue 13, defects 8-10), each
// against PyTorch 1.13's answer: the 2-norm and std at zero (0, not NaN),
// NaN through relu and maximum/minimum (propagated, the gradient passed on),
// and cross_entropy/nll_loss with every target ignored (loss NaN, gradient 0).
// edge_values_test.cpp checks the same classes for every op from the table.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "nabla/nabla.h"

namespace nabla {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor leaf(std::vector<double> v, IntList shape) {
  return tensor(v, shape).to(kFloat64).requires_grad_(true);
}
std::vector<double> grad_of(const Tensor& x) { return x.grad().to_vector<double>(); }

// ---- defect 8: the 2-norm and std at zero --------------------------------

TEST(EdgeGradients, NormOfZeroTensorHasZeroGradient) {
  Tensor x = leaf({0, 0, 0, 0}, {2, 2});
  Tensor n = norm(x);
  EXPECT_EQ(n.item<double>(), 0.0);
  n.backward();
  for (double g : grad_of(x)) EXPECT_EQ(g, 0.0);  // was NaN
}

TEST(EdgeGradients, NormAlongDimZeroRowOnly) {
  Tensor x = leaf({0, 0, 0, 3, 0, 4}, {2, 3});
  norm(x, 2.0, {1}).sum().backward();
  std::vector<double> g = grad_of(x);
  const std::vector<double> want = {0, 0, 0, 0.6, 0, 0.8};  // the zero row: 0, not NaN
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], want[i], 1e-15) << i;
}

TEST(EdgeGradients, PNormsAtZero) {
  // PyTorch 1.13: 0 for every element of a zero row, and for a zero element
  // of a nonzero row (also for p < 1, whose slope at 0 is infinite).
  for (double p : {1.0, 1.5, 3.0, 0.5, kInf, -kInf}) {
    Tensor x = leaf({0, 0, 0, 1, 0, 2}, {2, 3});
    norm(x, p, {1}).sum().backward();
    std::vector<double> g = grad_of(x);
    for (int i : {0, 1, 2, 4}) EXPECT_EQ(g[i], 0.0) << "p " << p << " element " << i;
    EXPECT_TRUE(std::isfinite(g[3]) && std::isfinite(g[5])) << "p " << p;
  }
}

TEST(EdgeGradients, StdOfConstantSliceHasZeroGradient) {
  for (int64_t correction : {0, 1}) {
    Tensor x = leaf({2, 2, 2, 1, 2, 3}, {2, 3});
    Tensor s = nabla::std(x, {1}, correction);
    EXPECT_EQ(s.to_vector<double>()[0], 0.0);
    s.sum().backward();
    std::vector<double> g = grad_of(x);
    for (int i : {0, 1, 2}) EXPECT_EQ(g[i], 0.0) << "correction " << correction;  // was NaN
    double half = correction ? 0.5 : 1.0 / std::sqrt(6.0);  // d std / d x of [1, 2, 3]
    EXPECT_NEAR(g[3], -half, 1e-15);
    EXPECT_NEAR(g[5], half, 1e-15);
  }
}

TEST(EdgeGradients, StdOfOneElementWithCorrectionIsNaN) {
  // n - correction = 0: PyTorch gives NaN for the value and the gradient; so does nabla.
  Tensor x = leaf({2}, {1, 1});
  Tensor s = nabla::std(x, {1}, 1);
  EXPECT_TRUE(std::isnan(s.to_vector<double>()[0]));
  s.sum().backward();
  EXPECT_TRUE(std::isnan(grad_of(x)[0]));
}

// ---- defect 9: NaN through relu and maximum/minimum ---------------------

TEST(EdgeGradients, ReluPropagatesNaNAndItsGradient) {
  for (DType t : {kFloat32, kFloat64}) {
    Tensor x = tensor({kNaN, -1.0, 0.0, 2.0}).to(t).requires_grad_(true);
    Tensor y = relu(x);
    std::vector<double> v = y.to(kFloat64).to_vector<double>();
    EXPECT_TRUE(std::isnan(v[0])) << "relu(NaN) was 0";
    EXPECT_EQ(v[1], 0.0);
    EXPECT_EQ(v[3], 2.0);
    y.sum().backward();
    std::vector<double> g = x.grad().to(kFloat64).to_vector<double>();
    EXPECT_EQ(g, (std::vector<double>{1, 0, 0, 1})) << "PyTorch passes the gradient at NaN, blocks it at 0";
  }
}

TEST(EdgeGradients, ReluOfLargeNaNTensorVectorizedPath) {
  // Long enough for the vectorized loop and its tail.
  std::vector<double> v(1037, -1.0);
  for (std::size_t i = 0; i < v.size(); i += 7) v[i] = kNaN;
  std::vector<float> r = relu(tensor(v).to(kFloat32)).to_vector<float>();
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_EQ(std::isnan(r[i]), i % 7 == 0) << i;
}

TEST(EdgeGradients, MaximumWithNaNSendsTheGradientToBoth) {
  Tensor a = leaf({kNaN, 1.0, 2.0, 3.0}, {4});
  Tensor b = leaf({1.0, kNaN, 2.0, 1.0}, {4});
  Tensor m = maximum(a, b);
  m.sum().backward();
  EXPECT_EQ(grad_of(a), (std::vector<double>{1, 1, 0.5, 1}));  // was {0, 0, 0.5, 1}
  EXPECT_EQ(grad_of(b), (std::vector<double>{1, 1, 0.5, 0}));
  Tensor c = leaf({kNaN, 1.0}, {2}), d = leaf({1.0, 0.0}, {2});
  minimum(c, d).sum().backward();
  EXPECT_EQ(grad_of(c), (std::vector<double>{1, 0}));
  EXPECT_EQ(grad_of(d), (std::vector<double>{1, 1}));
}

// ---- defect 10: every target ignored ---------------------------------------

TEST(EdgeGradients, CrossEntropyWithEveryTargetIgnored) {
  Tensor target = tensor({-100.0, -100.0}).to(kInt64);
  for (bool weighted : {false, true}) {
    for (double smoothing : {0.0, 0.2}) {
      Tensor x = leaf({1, 2, 3, 0, 0, 0}, {2, 3});
      Tensor w = weighted ? tensor({1.0, 0.0, 2.0}).to(kFloat64) : Tensor();
      Tensor loss = cross_entropy(x, target, w, -100, "mean", smoothing);
      EXPECT_TRUE(std::isnan(loss.item<double>()));  // 0 / 0, as in PyTorch
      loss.backward();
      for (double g : grad_of(x)) EXPECT_EQ(g, 0.0) << "weighted " << weighted << " smoothing " << smoothing;
    }
  }
}

TEST(EdgeGradients, NllLossWithEveryTargetIgnored) {
  Tensor target = tensor({-100.0, -100.0}).to(kInt64);
  for (bool weighted : {false, true}) {
    Tensor x = leaf({-1, -2, -3, -0.5, -1, -2}, {2, 3});
    Tensor w = weighted ? tensor({1.0, 0.0, 2.0}).to(kFloat64) : Tensor();
    Tensor loss = nll_loss(x, target, w);
    EXPECT_TRUE(std::isnan(loss.item<double>()));
    loss.backward();
    for (double g : grad_of(x)) EXPECT_EQ(g, 0.0) << "weighted " << weighted;
  }
}

TEST(EdgeGradients, NllLossZeroTotalWeightKeepsIgnoredRowsAtZero) {
  // PyTorch: the non-ignored target with weight 0 gets -0 * (1 / 0) = NaN at
  // its class only; the ignored row and the other classes stay 0.
  Tensor x = leaf({-1, -2, -3, -0.5, -1, -2}, {2, 3});
  Tensor target = tensor({1.0, -100.0}).to(kInt64);
  nll_loss(x, target, tensor({1.0, 0.0, 2.0}).to(kFloat64)).backward();
  std::vector<double> g = grad_of(x);
  for (int i : {0, 2, 3, 4, 5}) EXPECT_EQ(g[i], 0.0) << i;
  EXPECT_TRUE(std::isnan(g[1]));
}

}  // namespace
}  // namespace nabla

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

Tensor leaf(std::vector<double> v, IntList shape) { return tensor(v, shape).to(kFloat64).requires_grad_(true); }
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

TEST(EdgeGradients, NormSecondDerivativeAtZeroIsFinite) {
  // The rule's where() keeps every branch finite, so differentiating the
  // gradient again at a zero row gives no NaN either.
  Tensor x = leaf({0, 0, 0, 3, 0, 4}, {2, 3});
  Tensor g = grad({norm(x, 2.0, {1}).sum()}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
  Tensor h = grad({(g * g).sum()}, {x})[0];
  for (double v : h.to_vector<double>()) EXPECT_TRUE(std::isfinite(v));
}

TEST(EdgeGradients, InfNormOfSliceWithNaN) {
  // PyTorch 1.13: the norm is NaN and the slice's gradient 0 (its mask picks
  // the NaNs, and sgn(NaN) is 0); the other slices are untouched.
  for (double p : {kInf, -kInf}) {
    Tensor x = leaf({1, kNaN, 3, -2, 1, 2}, {2, 3});
    Tensor n = norm(x, p, {1});
    std::vector<double> v = n.to_vector<double>();
    EXPECT_TRUE(std::isnan(v[0]));
    EXPECT_EQ(v[1], p > 0 ? 2.0 : 1.0);
    n.sum().backward();
    std::vector<double> want =
        p > 0 ? std::vector<double>{0, 0, 0, -0.5, 0, 0.5} : std::vector<double>{0, 0, 0, 0, 1, 0};
    EXPECT_EQ(grad_of(x), want) << "p " << p;  // was NaN for the first slice
  }
}

TEST(EdgeGradients, NormAndStdAtZeroInAGraph) {
  // Graph values take the same gradient-shaping form: gradients() at a zero
  // row / constant slice is 0, not NaN.
  graph::Graph g;
  Tensor x = g.placeholder(kFloat64, {2, 3}, "x");
  Tensor loss = sum(norm(x, 2.0, {1})) + sum(nabla::std(x, {1}));
  Tensor dx = graph::gradients(loss, {x})[0];
  graph::Session sess(g);
  Tensor value = tensor(std::vector<double>{0, 0, 0, 2, 2, 2}, {2, 3}).to(kFloat64);
  Tensor got = sess.run(dx, {{x, value}});
  std::vector<double> v = got.to_vector<double>();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(v[i], 0.0) << i;                            // zero row
  for (int i = 3; i < 6; ++i) EXPECT_NEAR(v[i], 1.0 / std::sqrt(3.0), 1e-15) << i;  // norm's; std's is 0
}

TEST(EdgeGradients, StdOfConstantSliceHasZeroGradient) {
  for (int64_t correction : {0, 1}) {
    Tensor x = leaf({2, 2, 2, 1, 2, 3}, {2, 3});
    Tensor s = nabla::std(x, {1}, Correction{correction});
    EXPECT_EQ(s.to_vector<double>()[0], 0.0);
    s.sum().backward();
    std::vector<double> g = grad_of(x);
    for (int i : {0, 1, 2}) EXPECT_EQ(g[i], 0.0) << "correction " << correction;  // was NaN
    double half = correction ? 0.5 : 1.0 / std::sqrt(6.0);                        // d std / d x of [1, 2, 3]
    EXPECT_NEAR(g[3], -half, 1e-15);
    EXPECT_NEAR(g[5], half, 1e-15);
  }
}

TEST(EdgeGradients, StdOfOneElementWithCorrectionIsNaN) {
  // n - correction = 0: PyTorch gives NaN for the value and the gradient; so does nabla.
  Tensor x = leaf({2}, {1, 1});
  Tensor s = x.std({1}, Correction{1});
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

TEST(EdgeGradients, FullMaxAndMinWithNaN) {
  // PyTorch 1.13's max()/min(): NaN, the gradient split between the NaN
  // elements (amax/amin give every element NaN instead, as PyTorch's do).
  Tensor x = leaf({1, kNaN, 3, kNaN}, {4});
  Tensor m = max(x);
  EXPECT_TRUE(std::isnan(m.item<double>()));
  m.backward();
  EXPECT_EQ(grad_of(x), (std::vector<double>{0, 0.5, 0, 0.5}));  // was NaN everywhere
  Tensor y = leaf({3, 1, kNaN, 1}, {4});
  min(y).backward();
  EXPECT_EQ(grad_of(y), (std::vector<double>{0, 0, 1, 0}));
  Tensor z = leaf({3, 1, 3, 1}, {4});
  max(z).backward();
  EXPECT_EQ(grad_of(z), (std::vector<double>{0.5, 0, 0.5, 0}));  // ties: split
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

// ---- cumprod with zeros (was NaN: the rule divided by the input) ----------

TEST(EdgeGradients, CumprodThroughZeros) {
  // PyTorch 1.13's values: before the first zero out/x, at it the product of
  // the others, after it 0; a second zero blocks the first's later terms.
  Tensor x = leaf({2, 0, 3, 4, 1, 0, 0, 5}, {2, 4});
  cumprod(x, 1).backward(ones({2, 4}, dtype(kFloat64)));
  // row 0: out = [2, 0, 0, 0]: d/dx0 = 1, d/dx1 = 2 + 2*3 + 2*3*4 = 32, then 0.
  // row 1: out = [1, 0, 0, 0]: d/dx0 = 1, d/dx1 = 1 + 0 + 0 = 1, then 0.
  EXPECT_EQ(grad_of(x), (std::vector<double>{1, 32, 0, 0, 1, 1, 0, 0}));
}

// ---- where nabla keeps its own answer (docs/autograd.md) -------------------

TEST(EdgeGradients, VarOfSliceWithInf) {
  // PyTorch 1.13: the value is NaN, the gradient 2 g (x - mean) / (n - 1):
  // NaN only at the infinity (it was NaN everywhere).
  Tensor x = leaf({kInf, 1, 1, 1, 2, 3}, {2, 3});
  Tensor v = var(x, {1});
  EXPECT_TRUE(std::isnan(v.to_vector<double>()[0]));
  EXPECT_EQ(v.to_vector<double>()[1], 1.0);
  v.sum().backward();
  std::vector<double> g = grad_of(x);
  EXPECT_TRUE(std::isnan(g[0]));
  EXPECT_EQ(g[1], -kInf);
  EXPECT_EQ(g[2], -kInf);
  EXPECT_EQ((std::vector<double>(g.begin() + 3, g.end())), (std::vector<double>{-1, 0, 1}));
}

TEST(EdgeGradients, SmoothL1WithBetaZeroIsL1Loss) {
  // PyTorch documents beta = 0 as L1Loss, but its 1.13 backward gives -g at
  // d = 0 and NaN at d = NaN; nabla gives l1_loss's sign(d) g: 0 at both.
  Tensor x = leaf({1, kNaN, 2, -1}, {4});
  Tensor t = tensor({1.0, 0.0, 0.0, 0.0}).to(kFloat64);
  smooth_l1_loss(x, t, "sum", 0.0).backward();
  Tensor x2 = leaf({1, kNaN, 2, -1}, {4});
  l1_loss(x2, t, "sum").backward();
  EXPECT_EQ(grad_of(x), (std::vector<double>{0, 0, 1, -1}));
  EXPECT_EQ(grad_of(x), grad_of(x2));
}

TEST(EdgeGradients, ProdGradientOfNonFiniteElementNextToZero) {
  // Each element's "product of the others": exact for zeros, out / x for the
  // rest, so an inf beside a zero gets NaN (inf * 0 / inf). PyTorch switches
  // the whole tensor to exclusive products when it holds a zero anywhere
  // (here: 2 * 0 = 0).
  Tensor x = leaf({-kInf, 2, 0}, {1, 3});
  prod(x, {1}).sum().backward();
  std::vector<double> g = grad_of(x);
  EXPECT_TRUE(std::isnan(g[0]));
  EXPECT_TRUE(std::isnan(g[1]));  // -inf * 0 in both
  EXPECT_EQ(g[2], -kInf);         // -inf * 2 in both
}

TEST(EdgeGradients, ClampWithNaNBounds) {
  // PyTorch 1.13: a lone NaN bound leaves x as it is; with both bounds given
  // and one NaN, NaN everywhere (it was x). The gradient is 0 in every case.
  for (int which = 0; which < 3; ++which) {
    Tensor x = leaf({-1, 0.5, 2}, {3});
    Tensor y = which == 0 ? clamp_min(x, kNaN) : which == 1 ? clamp(x, 0.0, kNaN) : clamp(x, kNaN, 1.0);
    std::vector<double> v = y.to_vector<double>();
    if (which == 0)
      EXPECT_EQ(v, (std::vector<double>{-1, 0.5, 2}));
    else
      for (double e : v) EXPECT_TRUE(std::isnan(e)) << "case " << which;
    y.sum().backward();
    EXPECT_EQ(grad_of(x), (std::vector<double>{0, 0, 0})) << "case " << which;
  }
}

}  // namespace
}  // namespace nabla

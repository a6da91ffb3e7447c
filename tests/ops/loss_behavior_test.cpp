// What the OpInfo suites don't show about the losses: finite values and
// gradients at extreme logits (±1000) and at probabilities of exactly 0 and 1,
// that cross_entropy/nll_loss are single fused nodes, reduced floats, and that
// every loss op of the table has an OpInfo entry.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "nabla/autograd/node.h"
#include "support/op_info.h"

namespace nabla::testing {
namespace {

void expect_values(const Tensor& actual, const std::vector<double>& expected, double tol, const char* what) {
  std::vector<double> a = values(actual);
  ASSERT_EQ(a.size(), expected.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(std::isfinite(a[i])) << what << " element " << i << " is " << a[i];
    EXPECT_NEAR(a[i], expected[i], tol * std::max(1.0, std::abs(expected[i]))) << what << " element " << i;
  }
}

Tensor grad_leaf(const Tensor& t) {
  Tensor r = t.detach().clone();
  r.requires_grad_(true);
  return r;
}

TEST(LossStability, CrossEntropyAtLogits1000) {
  for (DType dt : {kFloat32, kFloat64}) {
    SCOPED_TRACE(dtype_name(dt));
    const double tol = dt == kFloat32 ? 1e-5 : 1e-9;
    Tensor x =
        grad_leaf(tensor({{1000.0, -1000.0, 0.0}, {-1000.0, -1000.0, 1000.0}, {1000.0, 1000.0, -1000.0}}, dtype(dt)));
    Tensor t = tensor(std::vector<int64_t>{0, 1, 1}, {3});
    Tensor loss = cross_entropy(x, t, Tensor(), kDefaultIgnoreIndex, "none");
    expect_values(loss, {0.0, 2000.0, std::log(2.0)}, tol, "loss");
    loss.sum().backward();
    expect_values(x.grad(), {0, 0, 0, 0, -1, 1, 0.5, -0.5, 0}, tol, "grad");

    // label smoothing and probability targets go through log p = x - lse too
    Tensor x2 = grad_leaf(x);
    Tensor smooth = cross_entropy(x2, t, Tensor(), kDefaultIgnoreIndex, "sum", 0.1);
    smooth.backward();
    expect_values(smooth, {0.9 * (2000.0 + std::log(2.0)) + 0.1 / 3 * (9000 + 3 * std::log(2.0))}, tol,
                  "smoothed loss");
    for (double g : values(x2.grad())) EXPECT_TRUE(std::isfinite(g));
    Tensor probs = tensor({{0.5, 0.5, 0.0}, {0.0, 0.0, 1.0}, {0.2, 0.3, 0.5}}, dtype(dt));
    Tensor x3 = grad_leaf(x);
    Tensor soft = cross_entropy(x3, probs, Tensor(), kDefaultIgnoreIndex, "none");
    soft.sum().backward();
    expect_values(soft, {1000.0, 0.0, std::log(2.0) + 0.5 * 2000}, tol, "probability-target loss");
    for (double g : values(x3.grad())) EXPECT_TRUE(std::isfinite(g));
  }
}

TEST(LossStability, BceWithLogitsAtLogits1000) {
  for (DType dt : {kFloat32, kFloat64}) {
    SCOPED_TRACE(dtype_name(dt));
    const double tol = dt == kFloat32 ? 1e-5 : 1e-9;
    Tensor x = grad_leaf(tensor({1000.0, -1000.0, 1000.0, -1000.0, 0.0, 100.0}, dtype(dt)));
    Tensor t = tensor({1.0, 0.0, 0.0, 1.0, 0.5, 1.0}, dtype(dt));
    Tensor loss = binary_cross_entropy_with_logits(x, t, Tensor(), "none");
    expect_values(loss, {0.0, 0.0, 1000.0, 1000.0, std::log(2.0), 0.0}, tol, "loss");
    loss.sum().backward();
    expect_values(x.grad(), {0.0, 0.0, 1.0, -1.0, 0.0, 0.0}, tol, "grad (sigmoid(x) - t)");

    Tensor xp = grad_leaf(x);
    Tensor pw = tensor({3.0}, dtype(dt));
    Tensor weighted = binary_cross_entropy_with_logits(xp, t, Tensor(), "none", pw);
    expect_values(weighted, {0.0, 0.0, 1000.0, 3000.0, 2 * std::log(2.0), 0.0}, tol, "pos_weight loss");
    weighted.sum().backward();
    // d/dx = (1 - t) - (1 + (pw - 1) t) sigmoid(-x); at x = 0, t = 0.5: 0.5 - 2 * 0.5
    expect_values(xp.grad(), {0.0, 0.0, 1.0, -3.0, -0.5, 0.0}, tol, "pos_weight grad");
  }
}

// A zero logit is common (zero-initialized last layer): the gradient there
// must be sigmoid(0) - t, not the subgradient of max(x, 0) or |x|.
TEST(LossStability, BceWithLogitsGradientAtZero) {
  Tensor x = grad_leaf(zeros({2}, dtype(kFloat64)));
  binary_cross_entropy_with_logits(x, tensor({1.0, 0.0}, dtype(kFloat64)), Tensor(), "sum").backward();
  expect_values(x.grad(), {-0.5, 0.5}, 1e-12, "grad");
}

TEST(LossStability, BinaryCrossEntropyAtZeroAndOne) {
  for (DType dt : {kFloat32, kFloat64}) {
    SCOPED_TRACE(dtype_name(dt));
    const double tol = dt == kFloat32 ? 1e-5 : 1e-9;
    Tensor x = grad_leaf(tensor({0.0, 1.0, 0.0, 1.0}, dtype(dt)));
    Tensor t = tensor({0.0, 1.0, 1.0, 0.0}, dtype(dt));
    Tensor loss = binary_cross_entropy(x, t, Tensor(), "none");
    expect_values(loss, {0.0, 0.0, 100.0, 100.0}, tol, "loss (logs clamped at -100)");
    loss.sum().backward();
    // PyTorch's bound is the float 1e-12 (9.99999996e-13): 1 / it is 1.000000004e12.
    const double inv_eps = 1.0 / static_cast<double>(1e-12f);
    expect_values(x.grad(), {0.0, 0.0, -inv_eps, inv_eps}, tol, "grad ((x - t) / max(x (1 - x), 1e-12f))");
  }
}

TEST(LossStability, RegressionLossesAtLargeValues) {
  Tensor x = grad_leaf(tensor({100.0, -100.0, 1e3}, dtype(kFloat32)));
  Tensor t = tensor({-100.0, 100.0, 0.0}, dtype(kFloat32));
  Tensor total = mse_loss(x, t) + l1_loss(x, t) + smooth_l1_loss(x, t) + huber_loss(x, t);
  total.backward();
  EXPECT_TRUE(std::isfinite(total.item<double>()));
  for (double g : values(x.grad())) EXPECT_TRUE(std::isfinite(g));
}

TEST(LossFusion, CrossEntropyAndNllLossAreSingleNodes) {
  Tensor x = grad_leaf(sample({4, 5}));
  Tensor t = tensor(std::vector<int64_t>{1, 0, 4, 2}, {4});
  EXPECT_EQ(cross_entropy(x, t).grad_fn()->name(), "cross_entropy");
  EXPECT_EQ(cross_entropy(x, t, Tensor(), kDefaultIgnoreIndex, "none", 0.2).grad_fn()->name(), "cross_entropy");
  EXPECT_EQ(nll_loss(x, t).grad_fn()->name(), "nll_loss");
  EXPECT_EQ(binary_cross_entropy(sigmoid(x), sigmoid(x).detach()).grad_fn()->name(), "binary_cross_entropy");
}

TEST(LossReducedFloat, CrossEntropyInFloat16) {
  Tensor x = sample({4, 5});
  Tensor t = tensor(std::vector<int64_t>{1, 0, 4, 2}, {4});
  Tensor w = sample_positive({5});
  Tensor half = cross_entropy(x.to(kFloat16), t, w, kDefaultIgnoreIndex, "mean", 0.1);
  EXPECT_EQ(half.dtype(), kFloat16);
  EXPECT_NEAR(half.item<double>(), cross_entropy(x, t, w, kDefaultIgnoreIndex, "mean", 0.1).item<double>(), 1e-2);
}

// As in PyTorch: "mean" of nothing is 0/0 = nan, "sum" is 0, "none" is empty.
TEST(LossEdgeCases, EmptyBatch) {
  Tensor x = zeros({0, 3}, dtype(kFloat64));
  Tensor t = tensor(std::vector<int64_t>{}, {0});
  EXPECT_TRUE(std::isnan(cross_entropy(x, t).item<double>()));
  EXPECT_EQ(cross_entropy(x, t, Tensor(), kDefaultIgnoreIndex, "sum").item<double>(), 0.0);
  EXPECT_EQ(nll_loss(x, t, Tensor(), kDefaultIgnoreIndex, "none").sizes(), Shape{0});
  EXPECT_EQ(binary_cross_entropy(x, x, Tensor(), "sum").item<double>(), 0.0);
}

// A weight that requires grad is not differentiated (see loss.h) and does not
// disturb the input's gradient.
TEST(LossEdgeCases, WeightRequiringGrad) {
  Tensor x = grad_leaf(sample({4, 5}));
  Tensor w = grad_leaf(sample_positive({5}));
  cross_entropy(x, tensor(std::vector<int64_t>{1, 0, 4, 2}, {4}), w).backward();
  EXPECT_TRUE(x.grad().defined());
  EXPECT_FALSE(w.grad().defined());
}

// Large enough for the kernels' parallel paths (with more than one thread):
// compared with a host loop in double.
TEST(LossKernels, LargeBatches) {
  const int64_t N = 40000, C = 4;
  Tensor x = sample({N, C}, -3, 3, 5).to(kFloat32);
  Tensor t = randint(0, C, {N});
  std::vector<double> xv = values(x), tv = values(t);
  double ce = 0, nll = 0;
  for (int64_t n = 0; n < N; ++n) {
    double m = -INFINITY, se = 0;
    for (int64_t c = 0; c < C; ++c) m = std::max(m, xv[n * C + c]);
    for (int64_t c = 0; c < C; ++c) se += std::exp(xv[n * C + c] - m);
    int64_t k = static_cast<int64_t>(tv[n]);
    ce += m + std::log(se) - xv[n * C + k];
    nll -= xv[n * C + k];
  }
  const double tol = 1e-6;
  EXPECT_NEAR(cross_entropy(x, t).item<double>(), ce / N, tol * ce / N);
  EXPECT_NEAR(cross_entropy(x, t, Tensor(), kDefaultIgnoreIndex, "none").to(kFloat64).sum().item<double>(), ce,
              tol * ce);
  EXPECT_NEAR(nll_loss(x, t, Tensor(), kDefaultIgnoreIndex, "sum").item<double>(), nll, tol * std::abs(nll));
  Tensor p = sigmoid(x.to(kFloat64)), labels = rand({N, C}, dtype(kFloat64));
  std::vector<double> pv = values(p), lv = values(labels);
  double bce = 0;
  for (std::size_t i = 0; i < pv.size(); ++i) bce -= lv[i] * std::log(pv[i]) + (1 - lv[i]) * std::log1p(-pv[i]);
  EXPECT_NEAR(binary_cross_entropy(p, labels, Tensor(), "sum").item<double>(), bce, 1e-9 * bce);
}

TEST(LossOps, EveryLossOpHasAnOpInfoEntry) {
  std::set<std::string> covered;
  for (const OpInfo& info : op_infos()) covered.insert(info.covers.begin(), info.covers.end());
  for (const char* name : {"cross_entropy", "cross_entropy_probs", "nll_loss", "mse_loss", "l1_loss",
                           "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
                           "binary_cross_entropy_with_logits", "kl_div"}) {
    EXPECT_NE(find_op(name), nullptr) << name << " is not in the op table";
    EXPECT_TRUE(covered.count(name)) << name << " has no OpInfo entry";
  }
}

}  // namespace
}  // namespace nabla::testing

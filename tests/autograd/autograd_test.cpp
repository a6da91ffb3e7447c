// Eager autograd: backward, accumulation, retain_graph, grad(), double
// backward, hooks, no_grad, detach, version counters.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"

namespace nabla {
namespace {

TEST(Autograd, BackwardOnScalarAndAccumulation) {
  Tensor w = tensor({1.0, 2.0, 3.0}, requires_grad());
  Tensor loss = (w * w).sum();
  EXPECT_FALSE(loss.is_leaf());
  EXPECT_TRUE(w.is_leaf());
  loss.backward();
  EXPECT_EQ(w.grad().to_vector<float>(), (std::vector<float>{2, 4, 6}));
  (w * 3.0).sum().backward();  // accumulates
  EXPECT_EQ(w.grad().to_vector<float>(), (std::vector<float>{5, 7, 9}));
  w.grad().zero_();
  EXPECT_EQ(w.grad().sum().item<float>(), 0.0f);
}

TEST(Autograd, BackwardWithGivenGradient) {
  Tensor x = tensor({1.0, 2.0}, requires_grad());
  Tensor y = x * 3.0;
  y.backward(tensor({1.0, 10.0}));
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{3, 30}));
}

TEST(Autograd, BroadcastGradientsAreReduced) {
  Tensor a = ones({3, 1}, requires_grad());
  Tensor b = ones({4}, requires_grad());
  (a * b).sum().backward();
  EXPECT_EQ(a.grad().sizes(), (Shape{3, 1}));
  EXPECT_EQ(a.grad().to_vector<float>(), (std::vector<float>{4, 4, 4}));
  EXPECT_EQ(b.grad().to_vector<float>(), (std::vector<float>{3, 3, 3, 3}));
}

TEST(Autograd, RetainGraphAllowsASecondBackward) {
  Tensor x = tensor({2.0}, requires_grad());
  Tensor y = (x.exp() * x).sum();
  y.backward(Tensor(), /*retain_graph=*/true);
  y.backward();
  EXPECT_NEAR(x.grad().item<float>(), 2 * (std::exp(2.0) * 3), 1e-3);
  try {
    y.backward();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("second time"), std::string::npos) << e.what();
  }
}

TEST(Autograd, GradFunctionAndDoubleBackward) {
  Tensor x = tensor({1.5}, dtype(kFloat64).requires_grad());
  Tensor y = x * x * x;  // y' = 3x^2, y'' = 6x
  TensorList g = grad({y.sum()}, {x}, {}, std::nullopt, /*create_graph=*/true);
  EXPECT_NEAR(g[0].item<double>(), 3 * 1.5 * 1.5, 1e-12);
  EXPECT_FALSE(x.grad().defined());  // grad() doesn't touch .grad()
  TensorList gg = grad({g[0].sum()}, {x});
  EXPECT_NEAR(gg[0].item<double>(), 6 * 1.5, 1e-12);
}

TEST(Autograd, GradOfUnusedInputNeedsAllowUnused) {
  Tensor x = ones({2}, requires_grad()), z = ones({2}, requires_grad());
  Tensor y = (x * 2.0).sum();
  EXPECT_THROW(grad({y}, {z}, {}, true), Error);
  TensorList g = grad({y}, {x, z}, {}, true, false, /*allow_unused=*/true);
  EXPECT_TRUE(g[0].defined());
  EXPECT_FALSE(g[1].defined());
}

TEST(Autograd, NoGradGuardAndDetach) {
  Tensor x = ones({2}, requires_grad());
  {
    NoGradGuard g;
    Tensor y = x * 2.0;
    EXPECT_FALSE(y.requires_grad());
  }
  Tensor d = (x * 2.0).detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_TRUE(d.is_leaf());
  Tensor y = x * 2.0;
  EXPECT_TRUE(y.requires_grad());
}

TEST(Autograd, HooksSeeAndReplaceGradients) {
  Tensor x = tensor({1.0, 2.0}, requires_grad());
  Tensor y = x * 2.0;
  Tensor seen;
  y.register_hook([&](const Tensor& g) {
    seen = g;
    return g * 10.0;
  });
  x.register_hook([](const Tensor& g) { return g + 1.0; });
  y.sum().backward();
  EXPECT_EQ(seen.to_vector<float>(), (std::vector<float>{1, 1}));
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{21, 21}));
}

// .grad takes the incoming gradient itself when nothing else holds it
// (PyTorch's AccumulateGrad steals it too): no copy of a large weight's
// gradient per step. A gradient held elsewhere, or handed to two leaves, is
// copied, so no two tensors share .grad's memory.
TEST(Autograd, LeafGradTakesAnUnsharedGradientWithoutACopy) {
  Tensor w = tensor({1.0, 2.0, 3.0}, requires_grad());
  const void* made = nullptr;
  w.register_hook([&](const Tensor& g) {
    Tensor r = g * 2.0;  // a fresh tensor that only the engine will hold
    made = r.raw_data();
    return r;
  });
  (w * w).sum().backward();
  EXPECT_EQ(w.grad().raw_data(), made);
  EXPECT_EQ(w.grad().to_vector<float>(), (std::vector<float>{4, 8, 12}));
}

TEST(Autograd, LeafGradCopiesAGradientHeldElsewhere) {
  Tensor w = tensor({1.0, 2.0}, requires_grad());
  Tensor kept;
  w.register_hook([&](const Tensor& g) {
    kept = g * 1.0;
    return kept;
  });
  (w * 3.0).sum().backward();
  EXPECT_NE(w.grad().raw_data(), kept.raw_data());
  kept.fill_(100.0);  // the hook's tensor is not the gradient
  EXPECT_EQ(w.grad().to_vector<float>(), (std::vector<float>{3, 3}));
}

TEST(Autograd, OneGradientForTwoLeavesGivesEachItsOwnCopy) {
  Tensor a = tensor({1.0, 2.0}, requires_grad());
  Tensor b = tensor({3.0, 4.0}, requires_grad());
  Tensor y = a + b;  // add's backward hands the same tensor to both
  y.backward(tensor({1.0, 10.0}));
  EXPECT_NE(a.grad().raw_data(), b.grad().raw_data());
  (a * 2.0).sum().backward();  // accumulates into a.grad only
  EXPECT_EQ(a.grad().to_vector<float>(), (std::vector<float>{3, 12}));
  EXPECT_EQ(b.grad().to_vector<float>(), (std::vector<float>{1, 10}));
}

// mm's gradient for an operand stored column-major (Linear's weight, used
// transposed) is column-major too (PyTorch's mm_mat2_backward), so the
// weight's .grad is that very memory in the weight's own row-major layout.
TEST(Autograd, TransposedMatmulOperandGetsItsGradientInItsOwnLayout) {
  manual_seed(1);
  Tensor x = randn({4, 6}), w = randn({3, 6}).requires_grad_(true), u = randn({4, 3});
  Tensor wt = w.t();
  Shape seen_strides;
  const void* seen = nullptr;
  wt.register_hook([&](const Tensor& g) {
    seen_strides = g.strides();
    seen = g.raw_data();
    return Tensor();
  });
  (mm(x, wt) * u).sum().backward();
  EXPECT_EQ(seen_strides, (Shape{1, 6}));
  EXPECT_EQ(w.grad().raw_data(), seen);
  EXPECT_TRUE(w.grad().is_contiguous());
  testing::assert_close(w.grad(), mm(u.t(), x), {.rtol = 1e-6, .atol = 1e-6});
}

TEST(Autograd, RetainGradKeepsNonLeafGradients) {
  Tensor x = ones({2}, requires_grad());
  Tensor y = x * 3.0;
  y.retain_grad();
  (y * y).sum().backward();
  EXPECT_EQ(y.grad().to_vector<float>(), (std::vector<float>{6, 6}));
}

TEST(Autograd, InPlaceOnSavedTensorIsDetected) {
  Tensor x = ones({3}, requires_grad());
  Tensor y = x * 2.0;
  Tensor z = y.exp();  // saves its output
  z.mul_(2.0);         // modifies the saved output
  try {
    z.sum().backward();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("modified by an in-place operation"), std::string::npos) << m;
    EXPECT_NE(m.find("exp"), std::string::npos) << m;
  }
}

TEST(Autograd, InPlaceOnNonLeafRebasesHistory) {
  Tensor x = tensor({1.0, 2.0}, requires_grad());
  Tensor y = x * 1.0;
  y.add_(x);  // y = 2x
  y.mul_(3.0);  // y = 6x
  y.sum().backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{6, 6}));
}

TEST(Autograd, ViewsBackpropagate) {
  Tensor x = arange(6, dtype(kFloat32).requires_grad()).clone();
  Tensor leaf = arange(6, dtype(kFloat64)).requires_grad_();
  Tensor v = leaf.view({2, 3}).t().slice(0, 1, 3).select(1, 1);
  (v * tensor({10.0, 20.0}, dtype(kFloat64))).sum().backward();
  EXPECT_EQ(leaf.grad().to_vector<double>(), (std::vector<double>{0, 0, 0, 0, 10, 20}));
  (void)x;
}

TEST(Autograd, SeedTwoLayerNetLossFalls) {
  manual_seed(0);
  Tensor x = randn({64, 1000}), y = randn({64, 10});
  Tensor w1 = randn({1000, 100}, requires_grad()), w2 = randn({100, 10}, requires_grad());
  float first = 0, last = 0;
  for (int t = 0; t < 50; ++t) {
    Tensor loss = (x.mm(w1).clamp(0).mm(w2) - y).pow(2).sum();
    last = loss.item<float>();
    if (t == 0) first = last;
    loss.backward();
    NoGradGuard g;
    w1 -= 1e-6 * w1.grad();
    w2 -= 1e-6 * w2.grad();
    w1.grad().zero_();
    w2.grad().zero_();
  }
  EXPECT_LT(last, first * 0.1f);
}

// An in-place op on a non-leaf whose rule saves its target (mul_ saves both
// inputs) must not keep that tensor alive from its own grad_fn: the node and
// the tensor were a cycle that was never freed when no backward reached the
// node (LeakSanitizer found it).
TEST(Autograd, InPlaceOnANonLeafFreesItsNode) {
  std::weak_ptr<autograd::Node> node;
  {
    Tensor x = tensor({1.0, -1.0}).requires_grad_();
    Tensor h = x * 1;
    h.mul_(2);
    node = h.grad_fn();
    ASSERT_FALSE(node.expired());
  }  // no backward ran, so nothing released the node's saved tensors
  EXPECT_TRUE(node.expired());
}

}  // namespace
}  // namespace nabla

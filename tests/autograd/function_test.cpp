// Custom autograd functions (nabla/autograd/function.h): the lecture's MyReLU,
// a float64 finite-difference check of a two-input function with a number
// argument, second derivatives, saved-tensor versioning and the errors.
#include <gtest/gtest.h>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"

namespace nabla {
namespace {

using autograd::FunctionCtx;

struct MyReLU : autograd::Function<MyReLU> {
  static Tensor forward(FunctionCtx* ctx, const Tensor& x) {
    ctx->save_for_backward({x});
    return x.clamp_min(0);
  }
  static TensorList backward(FunctionCtx* ctx, const TensorList& grad_outputs) {
    Tensor x = ctx->saved_tensors()[0];
    return {grad_outputs[0].masked_fill(x < 0, 0)};
  }
};

// a * x^2 + y: a number argument between two tensors; backward returns one
// gradient per argument (Tensor() for the number).
struct ScaledSquarePlus : autograd::Function<ScaledSquarePlus> {
  static Tensor forward(FunctionCtx* ctx, const Tensor& x, double a, const Tensor& y) {
    ctx->save_for_backward({x});
    ctx->saved_data["a"] = a;
    return x * x * a + y;
  }
  static TensorList backward(FunctionCtx* ctx, TensorList grads) {
    Tensor x = ctx->saved_tensors()[0];
    double a = ctx->saved_data.at("a").to<double>();
    Tensor gx = ctx->needs_input_grad(0) ? grads[0] * x * (2 * a) : Tensor();
    Tensor gy = ctx->needs_input_grad(2) ? grads[0] : Tensor();
    return {gx, Tensor(), gy};
  }
};

// Two outputs, gradients returned per tensor argument.
struct SplitSigns : autograd::Function<SplitSigns> {
  static TensorList forward(FunctionCtx*, const Tensor& x) { return {x.clamp_min(0), x.clamp_max(0)}; }
  static TensorList backward(FunctionCtx*, const TensorList& g) { return {g[0] + g[1]}; }
};

struct ReturnsInput : autograd::Function<ReturnsInput> {
  static Tensor forward(FunctionCtx*, const Tensor& x) { return x; }
  static TensorList backward(FunctionCtx*, const TensorList& g) { return {g[0] * 3}; }
};

// PyTorch's LinearFunction example: bias is optional (Tensor() for None).
struct LinearFunction : autograd::Function<LinearFunction> {
  static Tensor forward(FunctionCtx* ctx, const Tensor& x, const Tensor& w, const Tensor& bias) {
    ctx->save_for_backward({x, w});
    Tensor y = x.mm(w.t());
    return bias.defined() ? y + bias : y;
  }
  static TensorList backward(FunctionCtx* ctx, const TensorList& g) {
    TensorList saved = ctx->saved_tensors();
    Tensor gb = ctx->needs_input_grad(2) ? g[0].sum(0) : Tensor();
    return {g[0].mm(saved[1]), g[0].t().mm(saved[0]), gb};
  }
};

// Returns a gradient for every argument, even one left out.
struct GradForMissing : autograd::Function<GradForMissing> {
  static Tensor forward(FunctionCtx*, const Tensor& x, const Tensor&) { return x * 2; }
  static TensorList backward(FunctionCtx*, const TensorList& g) { return {g[0] * 2, g[0]}; }
};

struct WrongCount : autograd::Function<WrongCount> {
  static Tensor forward(FunctionCtx*, const Tensor& x) { return x * 2; }
  static TensorList backward(FunctionCtx*, const TensorList& g) { return {g[0], g[0]}; }
};

struct WrongShape : autograd::Function<WrongShape> {
  static Tensor forward(FunctionCtx*, const Tensor& x) { return x * 2; }
  static TensorList backward(FunctionCtx*, const TensorList& g) { return {g[0].sum()}; }
};

TEST(CustomFunction, MyReLUMatchesClamp) {
  manual_seed(0);
  Tensor x = randn({5, 7}).requires_grad_();
  Tensor w = randn({7, 3});
  MyReLU::apply(x).mm(w).pow(2).sum().backward();
  Tensor custom = x.grad();
  Tensor x2 = x.detach().clone().requires_grad_();
  x2.clamp_min(0).mm(w).pow(2).sum().backward();
  testing::assert_close(custom, x2.grad());
  EXPECT_NE(MyReLU::apply(x).grad_fn()->name().find("MyReLU"), std::string::npos);
}

TEST(CustomFunction, FiniteDifferencesFloat64) {
  manual_seed(1);
  Tensor x = randn({3, 4}, kFloat64).requires_grad_();
  Tensor y = randn({3, 4}, kFloat64).requires_grad_();
  Tensor w = randn({3, 4}, kFloat64);
  auto f = [&](const Tensor& a, const Tensor& b) { return (ScaledSquarePlus::apply(a, 1.5, b) * w).sum(); };
  f(x, y).backward();
  const double eps = 1e-6;
  for (int which = 0; which < 2; ++which) {
    Tensor base = (which == 0 ? x : y).detach();
    std::vector<double> numeric;
    for (int64_t i = 0; i < base.numel(); ++i) {
      Tensor plus = base.clone(), minus = base.clone();
      plus.view({-1}).select(0, i).add_(eps);
      minus.view({-1}).select(0, i).sub_(eps);
      NoGradGuard g;
      double fp = which == 0 ? f(plus, y.detach()).item<double>() : f(x.detach(), plus).item<double>();
      double fm = which == 0 ? f(minus, y.detach()).item<double>() : f(x.detach(), minus).item<double>();
      numeric.push_back((fp - fm) / (2 * eps));
    }
    testing::assert_close((which == 0 ? x : y).grad(), tensor(numeric, {3, 4}, kFloat64), {.rtol = 1e-6, .atol = 1e-7});
  }
}

TEST(CustomFunction, BackwardIsDifferentiableUnderCreateGraph) {
  Tensor x = tensor({1.0, -2.0, 3.0}, kFloat64).requires_grad_();
  Tensor y = zeros({3}, kFloat64);
  Tensor loss = ScaledSquarePlus::apply(x, 2.0, y).sum();  // 2 x^2
  TensorList g = grad({loss}, {x}, {}, std::nullopt, /*create_graph=*/true);
  testing::assert_close(g[0], tensor({4.0, -8.0, 12.0}, kFloat64));  // 4 x
  TensorList gg = grad({g[0].sum()}, {x});
  testing::assert_close(gg[0], tensor({4.0, 4.0, 4.0}, kFloat64));
}

TEST(CustomFunction, OnlyInputsThatNeedGradGetOne) {
  Tensor x = tensor({1.0, 2.0}).requires_grad_();
  Tensor y = tensor({5.0, 6.0});  // no grad
  ScaledSquarePlus::apply(x, 1.0, y).sum().backward();
  testing::assert_close(x.grad(), tensor({2.0, 4.0}));
  EXPECT_FALSE(y.grad().defined());
}

TEST(CustomFunction, TwoOutputsAndGradientsPerTensorArgument) {
  Tensor x = tensor({-1.0, 2.0, -3.0}).requires_grad_();
  TensorList parts = SplitSigns::apply(x);
  ASSERT_EQ(parts.size(), 2u);
  (parts[0] * 2).sum().backward();  // the second output gets zeros
  testing::assert_close(x.grad(), tensor({2.0, 2.0, 2.0}));
}

TEST(CustomFunction, ReturningAnInputLeavesItsHistoryAlone) {
  Tensor x = tensor({1.0, 2.0}).requires_grad_();
  Tensor y = ReturnsInput::apply(x);
  EXPECT_TRUE(x.is_leaf());
  EXPECT_FALSE(y.is_leaf());
  y.sum().backward();
  testing::assert_close(x.grad(), tensor({3.0, 3.0}));
}

TEST(CustomFunction, NoGradModeRecordsNothing) {
  Tensor x = tensor({1.0, -1.0}).requires_grad_();
  NoGradGuard g;
  Tensor y = MyReLU::apply(x);
  EXPECT_FALSE(y.requires_grad());
}

TEST(CustomFunction, InPlaceChangeOfASavedTensorIsAnError) {
  Tensor x = tensor({1.0, -1.0}).requires_grad_();
  Tensor h = x * 1;
  Tensor y = MyReLU::apply(h);
  h.mul_(2);
  try {
    y.sum().backward();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("modified by an in-place operation"), std::string::npos) << e.what();
  }
}

TEST(CustomFunction, SecondBackwardWithoutRetainGraphIsAnError) {
  Tensor x = tensor({1.0, -1.0}).requires_grad_();
  Tensor y = MyReLU::apply(x).sum();
  y.backward();
  EXPECT_THROW(y.backward(), Error);
  Tensor z = MyReLU::apply(x).sum();
  z.backward({}, /*retain_graph=*/true);
  z.backward();
  testing::assert_close(x.grad(), tensor({3.0, 0.0}));
}

TEST(CustomFunction, BadBackwardResultsNameTheFunction) {
  Tensor x = tensor({1.0, 2.0}).requires_grad_();
  try {
    WrongCount::apply(x).sum().backward();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("WrongCount::backward: returned 2 gradients, expected 1"), std::string::npos) << m;
  }
  try {
    WrongShape::apply(x).sum().backward();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("WrongShape::backward: the gradient of argument 0 has shape [] but that argument has shape [2]"),
              std::string::npos)
        << m;
  }
}

TEST(CustomFunction, OptionalTensorArgumentsMayBeLeftOut) {
  manual_seed(2);
  Tensor x = randn({4, 3}).requires_grad_(), w = randn({2, 3}).requires_grad_(), b = randn({2}).requires_grad_();
  LinearFunction::apply(x, w, b).sum().backward();
  Tensor x2 = x.detach().clone().requires_grad_(), w2 = w.detach().clone().requires_grad_();
  Tensor b2 = b.detach().clone().requires_grad_();
  linear(x2, w2, b2).sum().backward();
  testing::assert_close(x.grad(), x2.grad());
  testing::assert_close(w.grad(), w2.grad());
  testing::assert_close(b.grad(), b2.grad());

  Tensor x3 = x.detach().clone().requires_grad_();
  Tensor y = LinearFunction::apply(x3, w.detach(), Tensor());  // no bias
  y.sum().backward();
  testing::assert_close(x3.grad(), x2.grad());

  Tensor z = x.detach().clone().requires_grad_();
  try {
    GradForMissing::apply(z, Tensor()).sum().backward();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("returned a gradient for argument 1, which was an undefined tensor"),
              std::string::npos)
        << e.what();
  }
}

TEST(CustomFunction, GraphValuesAreRefused) {
  graph::Graph g;
  Tensor p = g.placeholder(kFloat32, {2}, "x");
  EXPECT_THROW(MyReLU::apply(p), Error);
}

}  // namespace
}  // namespace nabla

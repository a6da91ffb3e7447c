// adam_update (nabla/ops/optimizer_update.h): the op table entry against a
// naive reference, bit-for-bit agreement with optim::Adam's step, inputs left
// unchanged, and clear errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "nabla/nabla.h"
#include "tests/support/error_message.h"
#include "tests/support/op_info.h"
#include "tests/support/same_bits.h"

namespace nabla::testing {
namespace {

constexpr double kBeta1 = 0.8, kBeta2 = 0.95, kAdamEps = 1e-3;

// Inputs: param, grad, exp_avg, exp_avg_sq, step_size, bias_correction2_sqrt.
OpInfo adam_update_info() {
  OpInfo info;
  info.name = "adam_update";
  info.covers = {"adam_update"};
  info.differentiable = false;
  info.gradgrad = false;
  info.run = [](const Tensors& in) {
    TensorList next = adam_update(in[0], in[1], in[2], in[3], in[4], in[5], kBeta1, kBeta2, kAdamEps);
    return Tensors(next.begin(), next.end());
  };
  info.samples = [] {
    std::vector<Tensors> r;
    uint64_t seed = 71;
    for (Shape s : {Shape{7}, Shape{3, 5}, Shape{2, 3, 4}}) {
      r.push_back({sample(s, -2, 2, seed), sample(s, -1, 1, seed + 1), sample(s, -0.5, 0.5, seed + 2),
                   sample_positive(s, seed + 3), full({}, 0.01, kFloat64), full({}, 0.3, kFloat64)});
      seed += 4;
    }
    return r;
  };
  info.reference = [](const Tensors& in) {
    std::vector<double> p = values(in[0]), g = values(in[1]), m = values(in[2]), v = values(in[3]);
    const double step_size = values(in[4])[0], bc2 = values(in[5])[0];
    for (std::size_t i = 0; i < p.size(); ++i) {
      m[i] = kBeta1 * m[i] + (1 - kBeta1) * g[i];
      v[i] = kBeta2 * v[i] + (1 - kBeta2) * g[i] * g[i];
      p[i] -= m[i] / (std::sqrt(v[i]) / bc2 + kAdamEps) * step_size;
    }
    const Shape& s = in[0].sizes();
    return Tensors{from_values(p, s), from_values(m, s), from_values(v, s)};
  };
  return info;
}
NABLA_OP_INFO(adam_update_info());

TEST(AdamUpdate, EqualsOptimAdamBitForBit) {
  for (DType dt : {kFloat32, kFloat64}) {
    Tensor w = randn({37, 11}, dt).requires_grad_();
    Tensor param = w.detach().clone(), m = zeros_like(param), v = zeros_like(param);
    const double lr = 0.05, beta1 = 0.85, beta2 = 0.99, eps = 1e-6;
    optim::Adam opt({w}, optim::Options{{"lr", lr}, {"beta1", beta1}, {"beta2", beta2}, {"eps", eps}});
    for (int t = 1; t <= 4; ++t) {
      Tensor grad = randn({37, 11}, dt);
      w.set_grad(grad.clone());
      opt.step();
      // The scalars as optim::Adam rounds them: computed in double.
      Tensor step_size = full({}, lr / (1.0 - std::pow(beta1, t)), dt);
      Tensor bc2 = full({}, std::sqrt(1.0 - std::pow(beta2, t)), dt);
      TensorList next = adam_update(param, grad, m, v, step_size, bc2, beta1, beta2, eps);
      param = next[0], m = next[1], v = next[2];
      ASSERT_TRUE(same_bits(param, w.detach())) << dt << " step " << t;
    }
  }
}

TEST(AdamUpdate, LeavesItsInputsUnchangedAndTakesStridedOnes) {
  Tensor p = randn({6, 4}), g = randn({4, 6}).t(), m = randn({6, 4}) * 0.1, v = rand({6, 4});
  Tensor p0 = p.clone(), m0 = m.clone(), v0 = v.clone();
  TensorList next = adam_update(p, g, m, v, full({}, 0.1), full({}, 0.5), 0.9, 0.999, 1e-8);
  EXPECT_TRUE(same_bits(p, p0));
  EXPECT_TRUE(same_bits(m, m0));
  EXPECT_TRUE(same_bits(v, v0));
  TensorList dense = adam_update(p, g.contiguous(), m, v, full({}, 0.1), full({}, 0.5), 0.9, 0.999, 1e-8);
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(same_bits(next[k], dense[k])) << k;
  EXPECT_FALSE(next[0].requires_grad());
}

TEST(AdamUpdate, BadInputsAreClearErrors) {
  Tensor p = randn({3, 2}), s = full({}, 0.1);
  auto run = [&](const Tensor& param, const Tensor& grad, const Tensor& m, const Tensor& step, double beta1) {
    return [=] { adam_update(param, grad, m, zeros_like(param), step, s, beta1, 0.999, 1e-8); };
  };
  expect_error(error_of(run(p, randn({2, 3}), p, s, 0.9)),
               {"adam_update", "grad has shape [2, 3]", "expected param's shape [3, 2]"});
  expect_error(error_of(run(p, p, p.to(kFloat64), s, 0.9)),
               {"adam_update", "exp_avg has dtype float64", "expected param's dtype float32"});
  expect_error(error_of(run(p, p, p, full({1}, 0.1), 0.9)), {"adam_update", "step_size must be a 0-dim tensor", "[1]"});
  expect_error(error_of(run(p, p, p, s, 1.0)), {"adam_update", "beta1 must be in [0, 1), got 1"});
  Tensor h = p.to(kFloat16);
  expect_error(error_of([&] { adam_update(h, h, h, h, s.to(kFloat16), s.to(kFloat16), 0.9, 0.999, 1e-8); }),
               {"adam_update", "param must be float32 or float64, got float16"});
}

}  // namespace
}  // namespace nabla::testing

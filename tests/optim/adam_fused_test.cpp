// Adam/AdamW update contiguous float32 parameters in one fused pass; other
// parameters (here: a transposed, non-contiguous view) go through the tensor
// expressions. The two must give bit-identical trajectories, for every
// option the fused pass handles.
#include <gtest/gtest.h>

#include "nabla/nabla.h"

namespace nabla::optim {
namespace {

void expect_identical_trajectories(bool adamw, const Options& options) {
  manual_seed(3);
  Tensor init = randn({7, 5});
  Tensor fused = init.clone().requires_grad_();
  Tensor strided = init.t().contiguous().t();  // same values, column-major
  ASSERT_FALSE(strided.is_contiguous());
  strided.requires_grad_();
  std::unique_ptr<Optimizer> a, b;
  if (adamw) {
    a = std::make_unique<AdamW>(std::vector<Tensor>{fused}, options);
    b = std::make_unique<AdamW>(std::vector<Tensor>{strided}, options);
  } else {
    a = std::make_unique<Adam>(std::vector<Tensor>{fused}, options);
    b = std::make_unique<Adam>(std::vector<Tensor>{strided}, options);
  }
  for (int step = 0; step < 6; ++step) {
    Tensor c = randn({7, 5}) * (step + 1.0);
    a->zero_grad();
    b->zero_grad();
    sum(fused * c + fused * fused).backward();
    sum(strided * c + strided * strided).backward();
    a->step();
    b->step();
    ASSERT_EQ(max(abs(fused - strided)).item<double>(), 0.0) << "step " << step;
  }
  const Tensor& m = a->state(0, 0).buffers.at("exp_avg");
  const Tensor& v = a->state(0, 0).buffers.at("exp_avg_sq");
  EXPECT_EQ(max(abs(m - b->state(0, 0).buffers.at("exp_avg"))).item<double>(), 0.0);
  EXPECT_EQ(max(abs(v - b->state(0, 0).buffers.at("exp_avg_sq"))).item<double>(), 0.0);
}

TEST(AdamFused, MatchesTensorExpressionsBitForBit) {
  expect_identical_trajectories(false, {});
  expect_identical_trajectories(false, {{"lr", 0.1}, {"weight_decay", 0.05}});
  expect_identical_trajectories(false, {{"lr", 0.01}, {"maximize", 1}, {"eps", 1e-3}});
  expect_identical_trajectories(true, {});
  expect_identical_trajectories(true, {{"lr", 0.1}, {"weight_decay", 0.3}, {"beta1", 0.5}, {"beta2", 0.9}});
}

// The fused pass writes memory directly; it must still count as an in-place
// change for autograd's saved-tensor checks.
TEST(AdamFused, BumpsVersions) {
  Tensor w = ones({4}).requires_grad_();
  Adam opt({w});
  sum(w * w).backward();
  uint32_t before = w.version();
  opt.step();
  EXPECT_GT(w.version(), before);
}

}  // namespace
}  // namespace nabla::optim

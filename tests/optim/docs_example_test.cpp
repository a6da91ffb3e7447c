// The example of docs/optim.md, verbatim apart from the checks: a linear
// regression trained with Nesterov SGD, OneCycleLR and gradient clipping.
#include "optim/problem.h"

namespace nabla::optim {
namespace {

TEST(OptimDocs, ExampleTrainsALinearRegression) {
  manual_seed(0);
  Tensor w = randn({10, 1}, requires_grad()), b = zeros({1}, requires_grad());
  SGD opt({w, b}, {{"lr", 0.1}, {"momentum", 0.9}, {"nesterov", 1}, {"weight_decay", 1e-4}});
  OneCycleLR sched(opt, 0.5, OneCycleOptions{.total_steps = 100});
  double first = 0, last = 0, last_lr = 0, last_momentum = 0;
  for (int i = 0; i < 100; ++i) {
    Tensor x = randn({32, 10}), y = x.sum({1}, true);
    opt.zero_grad();
    Tensor loss = (x.mm(w) + b - y).pow(2).mean();
    loss.backward();
    clip_grad_norm_({w, b}, 1.0);
    opt.step();
    last_lr = opt.param_groups()[0].lr();
    last_momentum = opt.param_groups()[0].get("momentum");
    sched.step();
    (i == 0 ? first : last) = loss.item<double>();
  }
  EXPECT_LT(last, first * 1e-2) << "first " << first << ", last " << last;
  EXPECT_NEAR(last_lr, 0.5 / 25 / 1e4, 1e-12);  // the last step ran at initial_lr / final_div_factor
  EXPECT_NEAR(last_momentum, 0.95, 1e-12);  // momentum cycled back to max_momentum
}

}  // namespace
}  // namespace nabla::optim

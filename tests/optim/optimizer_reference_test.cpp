// Every optimizer setting of make_reference.py: 10 steps on the fixed problem
// match PyTorch 1.13's parameters after every step to 1e-6 relative.
#include <cstdio>
#include <memory>
#include <string>

#include "optim/problem.h"

namespace nabla::optim {
namespace {

using testing::Problem;

std::unique_ptr<Optimizer> make(const std::string& kind, std::vector<ParamGroup> groups, const Options& o) {
  if (kind == "SGD") return std::make_unique<SGD>(std::move(groups), o);
  if (kind == "Adam") return std::make_unique<Adam>(std::move(groups), o);
  if (kind == "AdamW") return std::make_unique<AdamW>(std::move(groups), o);
  if (kind == "RMSprop") return std::make_unique<RMSprop>(std::move(groups), o);
  if (kind == "Adagrad") return std::make_unique<Adagrad>(std::move(groups), o);
  ADD_FAILURE() << "unknown optimizer " << kind;
  return nullptr;
}

TEST(OptimReference, EveryOptimizerMatchesPyTorchFor10Steps) {
  for (const auto& rc : reference::kOptimCases) {
    Problem pb;
    std::vector<ParamGroup> groups;
    if (rc.two_groups) groups = {ParamGroup({pb.w}), ParamGroup({pb.b}, rc.b_options)};
    else groups = {ParamGroup({pb.w, pb.b})};
    auto opt = make(rc.optimizer, std::move(groups), rc.options);
    ASSERT_TRUE(opt);
    for (std::size_t s = 0; s < rc.params.size(); ++s) {
      opt->zero_grad();
      pb.backward();
      opt->step();
      testing::expect_close(pb.flat(), rc.params[s], std::string(rc.name) + " step " + std::to_string(s + 1));
    }
  }
  std::printf("[optim] max relative error vs PyTorch (optimizers): %.3g\n", testing::max_rel_error());
}

TEST(OptimReference, Float32ParametersFollowTheSameTrajectoryLoosely) {
  // The same rules on float32 parameters stay within float32 rounding of PyTorch's float64.
  const auto& rc = testing::optim_case("adam_lr_betas");
  Tensor w = tensor(reference::kW0, {2, 3}, dtype(kFloat32).requires_grad());
  Tensor b = tensor(reference::kB0, {3}, dtype(kFloat32).requires_grad());
  Tensor c = tensor(reference::kC, {2, 3}, dtype(kFloat32)), t = tensor(reference::kT, {2, 3}, dtype(kFloat32));
  Adam opt({w, b}, rc.options);
  for (int s = 0; s < 10; ++s) {
    opt.zero_grad();
    (w * c + b - t).pow(2).sum().backward();
    opt.step();
  }
  std::vector<double> got = w.to_vector<double>(), gb = b.to_vector<double>();
  got.insert(got.end(), gb.begin(), gb.end());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], rc.params[9][i], 1e-4) << i;
}

}  // namespace
}  // namespace nabla::optim

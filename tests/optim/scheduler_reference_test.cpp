// Every scheduler of make_reference.py: the lr of both groups after
// construction and after each of 12 steps, and the parameters the optimizer
// (SGD with momentum, or Adam for *_adam) reaches, match PyTorch 1.13.
#include <cstdio>
#include <memory>
#include <string>

#include "optim/problem.h"

namespace nabla::optim {
namespace {

using testing::Problem;

// Builds the scheduler that make_reference.py's SCHED_CASES builds under `name`.
struct AnyScheduler {
  std::unique_ptr<LRScheduler> epoch;
  std::unique_ptr<ReduceLROnPlateau> plateau;
};
AnyScheduler make(const std::string& name, Optimizer& o) {
  AnyScheduler s;
  if (name == "step_lr") s.epoch = std::make_unique<StepLR>(o, 3, 0.5);
  else if (name == "multi_step_lr") s.epoch = std::make_unique<MultiStepLR>(o, std::vector<int64_t>{2, 5, 5, 9}, 0.3);
  else if (name == "exponential_lr") s.epoch = std::make_unique<ExponentialLR>(o, 0.8);
  else if (name == "cosine_annealing_lr") s.epoch = std::make_unique<CosineAnnealingLR>(o, 5, 0.001);
  else if (name == "linear_lr") s.epoch = std::make_unique<LinearLR>(o, 0.25, 1.0, 4);
  else if (name == "one_cycle_lr")
    s.epoch = std::make_unique<OneCycleLR>(o, std::vector<double>{0.2, 0.1}, OneCycleOptions{.total_steps = 12});
  else if (name == "one_cycle_lr_adam")
    s.epoch = std::make_unique<OneCycleLR>(
        o, 0.05, OneCycleOptions{.total_steps = 12, .pct_start = 0.25, .div_factor = 10.0});
  else if (name == "plateau_min")
    s.plateau = std::make_unique<ReduceLROnPlateau>(
        o, PlateauOptions{.factor = 0.5, .patience = 1, .cooldown = 1, .min_lr = {0.02, 0.0}});
  else if (name == "plateau_max_abs")
    s.plateau = std::make_unique<ReduceLROnPlateau>(
        o, PlateauOptions{.mode = "max", .factor = 0.2, .patience = 0, .threshold = 0.05, .threshold_mode = "abs"});
  else ADD_FAILURE() << "unknown scheduler case " << name;
  return s;
}

std::vector<double> lrs(const Optimizer& o) {
  std::vector<double> v;
  for (const auto& g : o.param_groups()) v.push_back(g.lr());
  return v;
}

TEST(OptimReference, EverySchedulerMatchesPyTorch) {
  for (const auto& rc : reference::kSchedCases) {
    const std::string name = rc.name;
    Problem pb;
    std::vector<ParamGroup> groups = {ParamGroup({pb.w}, {{"lr", 0.1}}), ParamGroup({pb.b}, {{"lr", 0.05}})};
    std::unique_ptr<Optimizer> opt;
    if (name.ends_with("adam")) opt = std::make_unique<Adam>(std::move(groups));
    else opt = std::make_unique<SGD>(std::move(groups), Options{{"lr", 0.1}, {"momentum", 0.9}});
    AnyScheduler s = make(name, *opt);
    testing::expect_close(lrs(*opt), rc.lrs[0], name + " lr after construction");
    for (std::size_t i = 0; i < rc.params.size(); ++i) {
      opt->zero_grad();
      pb.backward();
      opt->step();
      if (s.plateau) s.plateau->step(reference::kPlateauMetrics[i]);
      else s.epoch->step();
      const std::string what = name + " step " + std::to_string(i + 1);
      testing::expect_close(lrs(*opt), rc.lrs[i + 1], what + " lr");
      testing::expect_close(s.plateau ? s.plateau->get_last_lr() : s.epoch->get_last_lr(), rc.lrs[i + 1],
                            what + " get_last_lr");
      testing::expect_close(pb.flat(), rc.params[i], what + " params");
    }
  }
  std::printf("[optim] max relative error vs PyTorch (so far, with schedulers): %.3g\n", testing::max_rel_error());
}

}  // namespace
}  // namespace nabla::optim

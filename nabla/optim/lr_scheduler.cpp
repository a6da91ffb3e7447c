// The epoch-based LR schedulers; formulas follow torch/optim/lr_scheduler.py
// (1.13) line by line, in double precision like Python floats.
#include "nabla/optim/lr_scheduler.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace nabla::optim {

namespace {
constexpr double kPi = std::numbers::pi;
int64_t py_mod(int64_t a, int64_t b) {
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
}  // namespace

std::vector<double> LRScheduler::group_lrs() const {
  std::vector<double> v;
  for (const auto& g : optimizer_.param_groups()) v.push_back(g.lr());
  return v;
}

void LRScheduler::initial_step() {
  base_lrs_.clear();
  for (auto& g : optimizer_.param_groups()) {
    if (!g.has("initial_lr")) g.set("initial_lr", g.lr());
    base_lrs_.push_back(g.get("initial_lr"));
  }
  step();
}

void LRScheduler::step() {
  ++step_count_;
  ++last_epoch_;
  std::vector<double> lrs = compute_lr();
  auto& groups = optimizer_.param_groups();
  for (std::size_t i = 0; i < groups.size(); ++i) groups[i].set_lr(lrs[i]);
  last_lr_ = std::move(lrs);
}

LRSchedulerState LRScheduler::state_dict() const { return {last_epoch_, step_count_, base_lrs_, last_lr_}; }

void LRScheduler::load_state_dict(const LRSchedulerState& state) {
  const std::size_t groups = optimizer_.param_groups().size();
  NABLA_CHECK(state.base_lrs.size() == groups && state.last_lr.size() == groups,
              "LRScheduler::load_state_dict: the state has ", state.base_lrs.size(), " base_lrs and ",
              state.last_lr.size(), " last_lr values, expected one per parameter group (", groups, ")");
  NABLA_CHECK(state.last_epoch >= 0 && state.step_count >= 1, "LRScheduler::load_state_dict: last_epoch ",
              state.last_epoch, " and step_count ", state.step_count,
              " are not a constructed scheduler's (expected last_epoch >= 0, step_count >= 1)");
  last_epoch_ = state.last_epoch;
  step_count_ = state.step_count;
  base_lrs_ = state.base_lrs;
  last_lr_ = state.last_lr;
}

StepLR::StepLR(Optimizer& opt, int64_t step_size, double gamma)
    : LRScheduler(opt), step_size_(step_size), gamma_(gamma) {
  NABLA_CHECK(step_size > 0, "StepLR: invalid step_size = ", step_size, ", expected step_size > 0");
  initial_step();
}

std::vector<double> StepLR::compute_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0 || last_epoch_ % step_size_ != 0) return lrs;
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

MultiStepLR::MultiStepLR(Optimizer& opt, std::vector<int64_t> milestones, double gamma)
    : LRScheduler(opt), milestones_(std::move(milestones)), gamma_(gamma) {
  for (std::size_t i = 1; i < milestones_.size(); ++i)
    NABLA_CHECK(milestones_[i - 1] <= milestones_[i], "MultiStepLR: milestones ", milestones_,
                " are not sorted, expected an increasing list");
  initial_step();
}

std::vector<double> MultiStepLR::compute_lr() {
  std::vector<double> lrs = group_lrs();
  auto count = std::count(milestones_.begin(), milestones_.end(), last_epoch_);
  if (count == 0) return lrs;
  for (double& lr : lrs) lr *= std::pow(gamma_, static_cast<double>(count));
  return lrs;
}

ExponentialLR::ExponentialLR(Optimizer& opt, double gamma) : LRScheduler(opt), gamma_(gamma) { initial_step(); }

std::vector<double> ExponentialLR::compute_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) return lrs;
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer& opt, int64_t T_max, double eta_min)
    : LRScheduler(opt), T_max_(T_max), eta_min_(eta_min) {
  NABLA_CHECK(T_max > 0, "CosineAnnealingLR: invalid T_max = ", T_max, ", expected T_max > 0");
  initial_step();
}

std::vector<double> CosineAnnealingLR::compute_lr() {
  std::vector<double> lrs = group_lrs();
  const double T = static_cast<double>(T_max_), e = static_cast<double>(last_epoch_);
  if (last_epoch_ == 0) return lrs;
  for (std::size_t i = 0; i < lrs.size(); ++i) {
    const double base = base_lrs_[i];
    if (py_mod(last_epoch_ - 1 - T_max_, 2 * T_max_) == 0)
      lrs[i] = lrs[i] + (base - eta_min_) * (1 - std::cos(kPi / T)) / 2;
    else
      lrs[i] = (1 + std::cos(kPi * e / T)) / (1 + std::cos(kPi * (e - 1) / T)) * (lrs[i] - eta_min_) + eta_min_;
  }
  return lrs;
}

LinearLR::LinearLR(Optimizer& opt, double start_factor, double end_factor, int64_t total_iters)
    : LRScheduler(opt), start_factor_(start_factor), end_factor_(end_factor), total_iters_(total_iters) {
  NABLA_CHECK(start_factor > 0 && start_factor <= 1, "LinearLR: invalid start_factor = ", start_factor,
              ", expected a value in (0, 1]");
  NABLA_CHECK(end_factor >= 0 && end_factor <= 1, "LinearLR: invalid end_factor = ", end_factor,
              ", expected a value in [0, 1]");
  NABLA_CHECK(total_iters > 0, "LinearLR: invalid total_iters = ", total_iters, ", expected total_iters > 0");
  initial_step();
}

std::vector<double> LinearLR::compute_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) {
    for (double& lr : lrs) lr *= start_factor_;
    return lrs;
  }
  if (last_epoch_ > total_iters_) return lrs;
  const double d = end_factor_ - start_factor_;
  for (double& lr : lrs)
    lr *= 1. + d / (static_cast<double>(total_iters_) * start_factor_ + static_cast<double>(last_epoch_ - 1) * d);
  return lrs;
}

}  // namespace nabla::optim

// Learning-rate schedulers (torch.optim.lr_scheduler, PyTorch 1.13 semantics).
// A scheduler changes the "lr" of each of an optimizer's groups; constructing it
// performs step 0 (so lr is the schedule's first value at once), and step() is
// called after optimizer.step(), once per epoch or iteration. The recursive
// ("chainable") forms of PyTorch are used, so values match it to the last bit.
// Only fresh schedules are supported (PyTorch's last_epoch = -1); to resume,
// construct the same schedule and load_state_dict() its saved progress. The
// scheduler keeps a reference to the optimizer, which must outlive it.
#pragma once
#include <cstdint>
#include <vector>

#include "nabla/optim/optimizer.h"

namespace nabla::optim {

// A scheduler's progress (PyTorch's state_dict without the constructor's
// settings, which the scheduler that loads it must already have): with the
// optimizer's state (its groups' "lr" and "initial_lr") it is all a schedule
// needs to continue exactly where it was.
struct LRSchedulerState {
  int64_t last_epoch = -1;
  int64_t step_count = 0;
  std::vector<double> base_lrs;  // one per parameter group
  std::vector<double> last_lr;   // one per parameter group
};

class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;
  void step();
  // The lr of each group after the last step.
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  const std::vector<double>& base_lrs() const { return base_lrs_; }

  LRSchedulerState state_dict() const;
  // Restores a state taken from a scheduler of the same kind and settings
  // over the same number of parameter groups (nabla::Error otherwise). The
  // optimizer's lr is not changed: it comes with the optimizer's own state.
  void load_state_dict(const LRSchedulerState& state);

 protected:
  explicit LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {}
  // Derived constructors call this last: sets initial_lr / base_lrs, performs step 0.
  void initial_step();
  // The lr of each group at last_epoch_ (PyTorch's get_lr).
  virtual std::vector<double> compute_lr() = 0;
  std::vector<double> group_lrs() const;

  Optimizer& optimizer_;
  int64_t last_epoch_ = -1;
  int64_t step_count_ = 0;
  std::vector<double> base_lrs_;
  std::vector<double> last_lr_;
};

// lr *= gamma every step_size steps.
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);
 protected:
  std::vector<double> compute_lr() override;
 private:
  int64_t step_size_;
  double gamma_;
};

// lr *= gamma at each milestone (a milestone given k times multiplies by gamma^k).
class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1);
 protected:
  std::vector<double> compute_lr() override;
 private:
  std::vector<int64_t> milestones_;
  double gamma_;
};

// lr *= gamma every step.
class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma);
 protected:
  std::vector<double> compute_lr() override;
 private:
  double gamma_;
};

// Cosine from the base lr down to eta_min over T_max steps (and back up after).
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0.0);
 protected:
  std::vector<double> compute_lr() override;
 private:
  int64_t T_max_;
  double eta_min_;
};

// Linear change of the lr's multiplier from start_factor to end_factor over
// total_iters steps (warm-up).
class LinearLR : public LRScheduler {
 public:
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0, int64_t total_iters = 5);
 protected:
  std::vector<double> compute_lr() override;
 private:
  double start_factor_, end_factor_;
  int64_t total_iters_;
};

// The 1cycle policy with cosine annealing: lr rises from max_lr / div_factor to
// max_lr over pct_start of total_steps, then falls to initial / final_div_factor;
// with cycle_momentum the group's "momentum" (or "beta1") moves inversely
// between max_momentum and base_momentum. Two phases only (three_phase=false).
struct OneCycleOptions {
  int64_t total_steps = 0;  // required, > 0
  double pct_start = 0.3;
  double div_factor = 25.0;
  double final_div_factor = 1e4;
  bool cycle_momentum = true;
  double base_momentum = 0.85;
  double max_momentum = 0.95;
};
class OneCycleLR : public LRScheduler {
 public:
  // max_lr: one value for all groups, or one per group.
  OneCycleLR(Optimizer& optimizer, std::vector<double> max_lr, OneCycleOptions options);
  OneCycleLR(Optimizer& optimizer, double max_lr, OneCycleOptions options)
      : OneCycleLR(optimizer, std::vector<double>{max_lr}, options) {}
 protected:
  std::vector<double> compute_lr() override;
 private:
  OneCycleOptions o_;
  std::string momentum_key_;  // "momentum", "beta1" or empty
};

}  // namespace nabla::optim

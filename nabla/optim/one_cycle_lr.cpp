// OneCycleLR (torch.optim.lr_scheduler.OneCycleLR, 1.13): two phases with
// cosine annealing of the lr and, inversely, of the momentum (or Adam's beta1).
#include <cmath>
#include <numbers>

#include "nabla/optim/lr_scheduler.h"

namespace nabla::optim {

namespace {
double annealing_cos(double start, double end, double pct) {
  double cos_out = std::cos(std::numbers::pi * pct) + 1;
  return end + (start - end) / 2.0 * cos_out;
}
}  // namespace

OneCycleLR::OneCycleLR(Optimizer& opt, std::vector<double> max_lr, OneCycleOptions o) : LRScheduler(opt), o_(o) {
  auto& groups = opt.param_groups();
  NABLA_CHECK(o.total_steps > 0, "OneCycleLR: invalid total_steps = ", o.total_steps,
              ", expected a positive number of steps");
  NABLA_CHECK(o.pct_start >= 0 && o.pct_start <= 1, "OneCycleLR: invalid pct_start = ", o.pct_start,
              ", expected a value in [0, 1]");
  NABLA_CHECK(max_lr.size() == 1 || max_lr.size() == groups.size(), "OneCycleLR: got ", max_lr.size(),
              " values of max_lr, expected 1 or one per parameter group (", groups.size(), ")");
  if (o.cycle_momentum) {
    const Options& d = opt.defaults();
    momentum_key_ = d.count("momentum") ? "momentum" : d.count("beta1") ? "beta1" : "";
    NABLA_CHECK(!momentum_key_.empty(), "OneCycleLR: ", opt.name(),
                " has no momentum or beta1, expected an optimizer with momentum when cycle_momentum is on");
  }
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const double m = max_lr.size() == 1 ? max_lr[0] : max_lr[i];
    groups[i].set("initial_lr", m / o.div_factor);
    groups[i].set("max_lr", m);
    groups[i].set("min_lr", groups[i].get("initial_lr") / o.final_div_factor);
    if (o.cycle_momentum) {
      groups[i].set(momentum_key_, o.max_momentum);
      groups[i].set("max_momentum", o.max_momentum);
      groups[i].set("base_momentum", o.base_momentum);
    }
  }
  initial_step();
}

std::vector<double> OneCycleLR::compute_lr() {
  const double step_num = static_cast<double>(last_epoch_);
  NABLA_CHECK(last_epoch_ <= o_.total_steps, "OneCycleLR: tried to step ", last_epoch_,
              " times, expected at most total_steps = ", o_.total_steps);
  struct Phase { double end_step; const char *start_lr, *end_lr, *start_m, *end_m; };
  const Phase phases[2] = {
      {o_.pct_start * static_cast<double>(o_.total_steps) - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
      {static_cast<double>(o_.total_steps - 1), "max_lr", "min_lr", "base_momentum", "max_momentum"}};
  std::vector<double> lrs;
  for (auto& g : optimizer_.param_groups()) {
    double start_step = 0, lr = 0, momentum = 0;
    for (int i = 0; i < 2; ++i) {
      const Phase& ph = phases[i];
      if (step_num <= ph.end_step || i == 1) {
        const double pct = (step_num - start_step) / (ph.end_step - start_step);
        lr = annealing_cos(g.get(ph.start_lr), g.get(ph.end_lr), pct);
        if (o_.cycle_momentum) momentum = annealing_cos(g.get(ph.start_m), g.get(ph.end_m), pct);
        break;
      }
      start_step = ph.end_step;
    }
    lrs.push_back(lr);
    if (o_.cycle_momentum) g.set(momentum_key_, momentum);
  }
  return lrs;
}

}  // namespace nabla::optim

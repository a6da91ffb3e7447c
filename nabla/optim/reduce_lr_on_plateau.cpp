// ReduceLROnPlateau: the metric bookkeeping of torch's version, line by line.
#include "nabla/optim/reduce_lr_on_plateau.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nabla::optim {

ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& opt, PlateauOptions o) : optimizer_(opt), o_(std::move(o)) {
  const auto& groups = opt.param_groups();
  NABLA_CHECK(o_.factor < 1.0 && o_.factor >= 0.0, "ReduceLROnPlateau: invalid factor = ", o_.factor,
              ", expected a value in [0, 1)");
  NABLA_CHECK(o_.mode == "min" || o_.mode == "max", "ReduceLROnPlateau: invalid mode '", o_.mode,
              "', expected 'min' or 'max'");
  NABLA_CHECK(o_.threshold_mode == "rel" || o_.threshold_mode == "abs",
              "ReduceLROnPlateau: invalid threshold_mode '", o_.threshold_mode, "', expected 'rel' or 'abs'");
  NABLA_CHECK(o_.patience >= 0 && o_.cooldown >= 0, "ReduceLROnPlateau: got patience = ", o_.patience,
              " and cooldown = ", o_.cooldown, ", expected both >= 0");
  NABLA_CHECK(o_.min_lr.size() == 1 || o_.min_lr.size() == groups.size(), "ReduceLROnPlateau: got ",
              o_.min_lr.size(), " values of min_lr, expected 1 or one per parameter group (", groups.size(), ")");
  for (std::size_t i = 0; i < groups.size(); ++i)
    min_lrs_.push_back(o_.min_lr.size() == 1 ? o_.min_lr[0] : o_.min_lr[i]);
  best_ = o_.mode == "min" ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  for (const auto& g : groups) last_lr_.push_back(g.lr());
}

bool ReduceLROnPlateau::is_better(double a) const {
  const bool rel = o_.threshold_mode == "rel";
  if (o_.mode == "min") return rel ? a < best_ * (1. - o_.threshold) : a < best_ - o_.threshold;
  return rel ? a > best_ * (o_.threshold + 1.) : a > best_ + o_.threshold;
}

void ReduceLROnPlateau::step(double metric) {
  ++last_epoch_;
  if (is_better(metric)) {
    best_ = metric;
    num_bad_epochs_ = 0;
  } else {
    ++num_bad_epochs_;
  }
  if (cooldown_counter_ > 0) {
    --cooldown_counter_;
    num_bad_epochs_ = 0;
  }
  auto& groups = optimizer_.param_groups();
  if (num_bad_epochs_ > o_.patience) {
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const double old_lr = groups[i].lr();
      const double new_lr = std::max(old_lr * o_.factor, min_lrs_[i]);
      if (old_lr - new_lr > o_.eps) groups[i].set_lr(new_lr);
    }
    cooldown_counter_ = o_.cooldown;
    num_bad_epochs_ = 0;
  }
  last_lr_.clear();
  for (const auto& g : groups) last_lr_.push_back(g.lr());
}

void ReduceLROnPlateau::load_state_dict(const PlateauState& state) {
  NABLA_CHECK(state.last_lr.size() == last_lr_.size(), "ReduceLROnPlateau::load_state_dict: the state has ",
              state.last_lr.size(), " parameter groups, expected ", last_lr_.size());
  NABLA_CHECK(state.num_bad_epochs >= 0 && state.cooldown_counter >= 0 && state.last_epoch >= 0,
              "ReduceLROnPlateau::load_state_dict: counters must be >= 0, got num_bad_epochs ", state.num_bad_epochs,
              ", cooldown_counter ", state.cooldown_counter, ", last_epoch ", state.last_epoch);
  best_ = state.best;
  num_bad_epochs_ = state.num_bad_epochs;
  cooldown_counter_ = state.cooldown_counter;
  last_epoch_ = state.last_epoch;
  last_lr_ = state.last_lr;
}

}  // namespace nabla::optim

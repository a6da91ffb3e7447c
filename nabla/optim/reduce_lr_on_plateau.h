// ReduceLROnPlateau (torch.optim.lr_scheduler.ReduceLROnPlateau, 1.13): lowers
// each group's lr by `factor` when a metric passed to step(metric) has not
// improved for more than `patience` steps, then waits `cooldown` steps.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "nabla/optim/optimizer.h"

namespace nabla::optim {

struct PlateauOptions {
  std::string mode = "min";             // "min" or "max"
  double factor = 0.1;                  // < 1
  int64_t patience = 10;
  double threshold = 1e-4;
  std::string threshold_mode = "rel";   // "rel" or "abs"
  int64_t cooldown = 0;
  std::vector<double> min_lr = {0.0};   // one value, or one per group
  double eps = 1e-8;                    // smaller lr changes are ignored
};

// Its progress (torch's state_dict without the options): with the optimizer's
// own state, what a resumed run needs to go on exactly as it would have.
struct PlateauState {
  double best = 0;
  int64_t num_bad_epochs = 0, cooldown_counter = 0, last_epoch = 0;
  std::vector<double> last_lr;  // one per parameter group
};

class ReduceLROnPlateau {
 public:
  explicit ReduceLROnPlateau(Optimizer& optimizer, PlateauOptions options = {});
  void step(double metric);
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t num_bad_epochs() const { return num_bad_epochs_; }
  double best() const { return best_; }
  PlateauState state_dict() const { return {best_, num_bad_epochs_, cooldown_counter_, last_epoch_, last_lr_}; }
  // A state of a ReduceLROnPlateau over as many parameter groups (nabla::Error otherwise).
  void load_state_dict(const PlateauState& state);

 private:
  bool is_better(double a) const;
  Optimizer& optimizer_;
  PlateauOptions o_;
  std::vector<double> min_lrs_, last_lr_;
  double best_;
  int64_t num_bad_epochs_ = 0, cooldown_counter_ = 0, last_epoch_ = 0;
};

}  // namespace nabla::optim

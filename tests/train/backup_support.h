// The small fit() the BackupAndRestore tests interrupt (in-process by a
// callback that throws, and as a child process killed with SIGKILL).
#pragma once
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "nabla/nabla.h"

namespace nabla::train::testing {

struct SmallFit {
  History history;
  nn::StateDict weights;
};

// An MLP with dropout and Adam on shuffled 4-class data (fit() draws the
// shuffling seed: FitOptions::seed is 0), a per-batch StepLR, ReduceLROnPlateau
// and EarlyStopping on val_loss, accuracy and F1; 198 training samples in
// batches of 16 (13 batches, the last one short), 4 epochs. `extra` callbacks
// go first; BackupAndRestore is put before the others on purpose (it runs
// last all the same). `draws_before_fit` random numbers are drawn just before
// fit(), which changes the seed fit() draws and the dropout masks unless a
// backup restores them.
inline SmallFit small_fit(const std::string& backup_dir, BackupOptions backup, std::vector<CallbackSpec> extra = {},
                          std::vector<MetricSpec> metrics = {"accuracy", "f1"}, int64_t draws_before_fit = 0) {
  manual_seed(7);
  Tensor x = randn({264, 12});
  Tensor y = x.narrow(1, 0, 4).argmax(1);
  auto model = std::make_shared<nn::Sequential>(
      std::vector<nn::ModulePtr>{std::make_shared<nn::Linear>(12, 32), std::make_shared<nn::ReLU>(),
                                 std::make_shared<nn::Dropout>(0.3), std::make_shared<nn::Linear>(32, 4)});
  auto adam = std::make_shared<optim::Adam>(model->parameters(), optim::Options{{"lr", 0.01}});
  auto step = std::make_shared<optim::StepLR>(*adam, 5, 0.9);
  Trainer trainer(model, {.optimizer = adam, .metrics = std::move(metrics)});
  std::vector<CallbackSpec> callbacks = std::move(extra);
  callbacks.push_back(BackupAndRestore(backup_dir, backup));
  callbacks.push_back(LearningRateScheduler(step, LearningRateScheduler::Every::Batch));
  callbacks.push_back(ReduceLROnPlateau("val_loss", {.factor = 0.5, .patience = 0}));
  callbacks.push_back(EarlyStopping({.monitor = "val_loss", .patience = 2, .restore_best_weights = true}));
  if (draws_before_fit > 0) rand({draws_before_fit});
  History h = trainer.fit(
      x, y, {.epochs = 4, .batch_size = 16, .validation_split = 0.25, .callbacks = callbacks, .verbose = 0});
  return {h, model->state_dict()};
}

// Throws at the end of the n-th training batch of the process (from 1), before
// the backup of that batch is written: an in-process crash. CrashAt(0) never
// throws (a resumed run needs the same callbacks as the one that crashed).
class CrashAt : public Callback {
 public:
  explicit CrashAt(int64_t n) : n_(n) {}
  void on_train_batch_end(int64_t, const Logs&) override {
    if (++seen_ == n_) throw std::runtime_error("crash at batch " + std::to_string(n_));
  }

 private:
  int64_t n_, seen_ = 0;
};

}  // namespace nabla::train::testing

// The callbacks that make train::Trainer::fit print and save what `nabla
// train` always has (docs/train.md): the progress bar (nabla/train/progress.h's)
// showing "loss 0.4123  acc 85.21%", the
// per-epoch test line, the training-state checkpoint that --resume reads, and
// the test-only kill hook. The test set is fit()'s validation data, so the
// logs' val_* values are the test set's.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "nabla/io/safetensors.h"
#include "nabla/optim/lr_scheduler.h"
#include "nabla/train/callbacks.h"
#include "nabla/train/progress.h"

namespace nabla::tool {

// What the progress bar shows after each batch: {"loss 0.4123", "acc 85.21%"}.
std::vector<std::string> loss_and_accuracy(const train::Logs& logs);

// The epoch's progress on train::ProgressBar (redrawn on a terminal, plain
// lines otherwise), showing the running loss_and_accuracy(); unlike
// train::ProgressBarCallback it prints no summary line of its own (TestLine does).
class EpochProgress : public train::Callback {
 public:
  EpochProgress(std::ostream& out, train::ProgressBar::Mode mode) : out_(out), mode_(mode) {}
  void on_epoch_begin(int epoch, const train::Logs& logs) override;
  void on_train_batch_end(int64_t batch, const train::Logs& logs) override;
  void on_epoch_end(int epoch, const train::Logs& logs) override;
  bool rank_zero_only() const override { return true; }  // --distributed: one display

 private:
  std::ostream& out_;
  train::ProgressBar::Mode mode_;
  std::unique_ptr<train::ProgressBar> bar_;
  int64_t samples_ = 0;
};

// "epoch 2/5: test loss 0.3012, test accuracy 89.10% (41.3 s elapsed)" after
// each epoch (elapsed since fit() began), and the last epoch's values.
class TestLine : public train::Callback {
 public:
  explicit TestLine(std::ostream& out) : out_(out) {}
  void on_train_begin(const train::Logs& logs) override;
  void on_epoch_end(int epoch, const train::Logs& logs) override;
  double test_loss = 0, test_accuracy = 0;

 private:
  std::ostream& out_;
  std::chrono::steady_clock::time_point start_;
};

// After every epoch, atomically, <out>/checkpoint.safetensors: the training
// state (io/training_state.h: model, optimizer, schedule, random generator,
// epoch, step) and `info` (the run's options, resume.h) with the model's
// name, the epochs done and the test values (%.17g).
class TrainingStateCheckpoint : public train::Callback {
 public:
  TrainingStateCheckpoint(std::string path, io::Metadata info, std::shared_ptr<optim::LRScheduler> schedule,
                          int64_t step, double best_accuracy);
  void on_train_batch_end(int64_t batch, const train::Logs& logs) override;
  void on_epoch_end(int epoch, const train::Logs& logs) override;
  // --distributed: rank 0 writes the checkpoint; fit()'s all-reduce after the
  // epoch's callbacks orders the write before what any rank does next.
  bool rank_zero_only() const override { return true; }

 private:
  std::string path_;
  io::Metadata info_;
  std::shared_ptr<optim::LRScheduler> schedule_;
  int64_t step_;  // optimizer steps taken, resumed ones included
  double best_accuracy_;
};

// The test-only hook of resume.h: SIGKILL after optimizer step `kill_at`
// (counted from `step`, the steps already done), after saying so.
class KillAtStep : public train::Callback {
 public:
  KillAtStep(std::ostream& out, int64_t kill_at, int64_t step) : out_(out), kill_at_(kill_at), step_(step) {}
  void on_train_batch_end(int64_t batch, const train::Logs& logs) override;

 private:
  std::ostream& out_;
  int64_t kill_at_, step_;
};

}  // namespace nabla::tool

// See train_callbacks.h.
#include "train_callbacks.h"

#include <algorithm>
#include <csignal>
#include <cstdio>

#include "nabla/core/parallel.h"
#include "nabla/io/training_state.h"
#include "nabla/train/trainer.h"
#include "resume.h"

namespace nabla::tool {
namespace {

double value(const train::Logs& logs, const std::string& key) {
  auto it = logs.find(key);
  return it == logs.end() ? 0.0 : it->second;
}

}  // namespace

std::vector<std::string> loss_and_accuracy(const train::Logs& logs) {
  char l[48], a[48];
  std::snprintf(l, sizeof l, "loss %.4f", value(logs, "loss"));
  std::snprintf(a, sizeof a, "acc %.2f%%", 100.0 * value(logs, "accuracy"));
  return {l, a};
}

void EpochProgress::on_epoch_begin(int epoch, const train::Logs&) {
  const std::string label = "epoch " + std::to_string(epoch + 1) + "/" + std::to_string(trainer().epochs());
  bar_ = std::make_unique<train::ProgressBar>(out_, mode_, label, trainer().steps_per_epoch());
  samples_ = 0;
}

void EpochProgress::on_train_batch_end(int64_t batch, const train::Logs& logs) {
  samples_ += trainer().last_batch_size() * trainer().world_size();  // --distributed: the whole job's
  bar_->update(batch + 1, samples_, loss_and_accuracy(logs));
}

void EpochProgress::on_epoch_end(int, const train::Logs&) {
  bar_->finish();
  bar_.reset();
}

void TestLine::on_train_begin(const train::Logs&) { start_ = std::chrono::steady_clock::now(); }

void TestLine::on_epoch_end(int epoch, const train::Logs& logs) {
  test_loss = value(logs, "val_loss");
  test_accuracy = value(logs, "val_accuracy");
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  char line[160];
  std::snprintf(line, sizeof line, "epoch %d/%d: test loss %.4f, test accuracy %.2f%% (%.1f s elapsed)\n", epoch + 1,
                trainer().epochs(), test_loss, 100.0 * test_accuracy, elapsed);
  out_ << line << std::flush;
}

TrainingStateCheckpoint::TrainingStateCheckpoint(std::string path, io::Metadata info,
                                                 std::shared_ptr<optim::LRScheduler> schedule, int64_t step,
                                                 double best_accuracy)
    : path_(std::move(path)),
      info_(std::move(info)),
      schedule_(std::move(schedule)),
      step_(step),
      best_accuracy_(best_accuracy) {}

void TrainingStateCheckpoint::on_train_batch_end(int64_t, const train::Logs&) { ++step_; }

void TrainingStateCheckpoint::on_epoch_end(int epoch, const train::Logs& logs) {
  const double accuracy = value(logs, "val_accuracy");
  best_accuracy_ = std::max(best_accuracy_, accuracy);
  io::TrainingState state;  // rng: save_training_state takes the live generator's
  state.epoch = epoch + 1;
  state.step = step_;
  state.info = info_;
  state.info["epochs"] = std::to_string(epoch + 1);
  state.info["test_accuracy"] = exact_number(accuracy);
  state.info["test_loss"] = exact_number(value(logs, "val_loss"));
  state.info["best_test_accuracy"] = exact_number(best_accuracy_);
  state.info["threads"] = std::to_string(get_num_threads());
  io::save_training_state(path_, trainer().model(), trainer().optimizer(), schedule_.get(), state);
}

void KillAtStep::on_train_batch_end(int64_t, const train::Logs&) {
  if (++step_ != kill_at_) return;
  out_ << "NABLA_TRAIN_KILL_AT_STEP: killing the process at step " << step_ << "\n" << std::flush;
  std::raise(SIGKILL);
}

}  // namespace nabla::tool

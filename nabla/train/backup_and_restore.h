// BackupAndRestore (keras.callbacks.BackupAndRestore): a fit() that is killed
// at any moment — SIGKILL included, in the middle of writing a backup too —
// and started again with the same code goes on from its last backup and ends
// with the same weights, to the bit, as a run that was never interrupted.
//
//   trainer.fit(x, y, {.epochs = 10, .callbacks = {train::BackupAndRestore("run/backup")}});
//
// A backup is one file, <backup_dir>/backup.safetensors, written atomically
// (io::save_training_state: a kill mid-write leaves the previous backup) at
// each epoch's end, or every save_freq training batches. It holds what
// decides how training goes on:
//   - the model's parameters and buffers, the optimizer's state, the global
//     random generator (dropout masks, ...): io::save_training_state;
//   - where the run stands: the epoch, the batches of it already done (they
//     are skipped without being loaded: DataLoader::set_start_batch), fit()'s
//     shuffling seed and the loader's epoch (the data order), stop_training;
//   - the running epoch's loss and metric accumulators (Metric::state_dict),
//     so the epoch's logged values are the same too, and the History so far;
//   - every other callback's state (Callback::state_dict): schedulers
//     (LearningRateScheduler, ReduceLROnPlateau), EarlyStopping's wait, best
//     and best weights, ModelCheckpoint's best.
// When fit() starts and a backup is there, it is checked (a file that is not
// a backup, is damaged, or does not fit the model or optimizer raises
// nabla::Error naming BackupAndRestore and the file) and the run resumes from
// it. In a data-parallel fit() (FitOptions::distributed) rank 0 writes the
// backup and every rank resumes from it (its generator and, mid-epoch, its
// running metric values are rank 0's). The backup is deleted when fit() ends normally (delete_checkpoint) and
// kept when fit() raises, as in Keras.
//
// "The same code": the same model, optimizer, data, FitOptions and callbacks
// in the same order. The callback runs after the others at every hook
// (Callback::runs_last), so its backups hold what they left. Whatever happens
// outside what a backup holds is not undone: files other callbacks write
// (CSVLogger: use append = true) and what the progress bar printed.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "nabla/train/callbacks.h"

namespace nabla::train {

struct BackupOptions {
  // 0 (kEveryEpoch): a backup at each epoch's end (Keras's "epoch");
  // N > 0: every N training batches, counted across epochs (Keras's integer).
  int64_t save_freq = 0;
  bool delete_checkpoint = true;  // remove the backup when fit() ends normally
};

class BackupAndRestore : public Callback {
 public:
  static constexpr int64_t kEveryEpoch = 0;
  explicit BackupAndRestore(std::string backup_dir, BackupOptions options = {});
  const std::string& path() const { return path_; }  // <backup_dir>/backup.safetensors

  bool runs_last() const override { return true; }
  std::optional<ResumePoint> resume_point() override;
  void on_train_begin(const Logs& logs) override;
  void on_epoch_begin(int epoch, const Logs& logs) override;
  void on_train_batch_end(int64_t batch, const Logs& logs) override;
  void on_epoch_end(int epoch, const Logs& logs) override;
  void on_train_end(const Logs& logs) override;

 private:
  // Saves the run as it stands after `batch` batches of `epoch` (0: before it
  // begins); `ended` is the epoch that just ended (its logs are not in the History yet).
  void save(int epoch, int64_t batch, uint64_t loader_epoch, const Logs* ended = nullptr);
  std::string dir_, path_;
  BackupOptions o_;
  int epoch_ = 0;
  uint64_t loader_epoch_ = 0;
  int64_t steps_done_ = 0;  // training batches of the whole run
};

}  // namespace nabla::train

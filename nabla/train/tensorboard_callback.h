// The TensorBoard callback of fit() (Keras's keras.callbacks.TensorBoard):
// the epochs' logs as curves in TensorBoard, through summary::SummaryWriter.
//
//   trainer.fit(data, {.callbacks = {train::TensorBoard("runs/exp1/logs")}});
//   $ tensorboard --logdir runs/exp1/logs
//
// Keras's layout and tags: two runs, <log_dir>/train and <log_dir>/validation;
// at each epoch's end "epoch_loss", "epoch_accuracy", ... (each metric of the
// logs; val_* ones without the prefix in the validation run) and
// "epoch_learning_rate" (the optimizer's first group's lr) in the train run,
// at step = the epoch (from 0, as Keras). With update_freq N > 0 also
// "batch_loss", "batch_accuracy", ... (the running values) every N batches,
// at step = the global batch number (from 1; epochs before initial_epoch
// count, so a resumed run continues its curves). With histogram_freq N > 0,
// a histogram of every parameter (tag: its name, "0.weight") every N epochs
// (epoch % N == 0), in the train run. With write_graph (on by default, as in
// Keras) the model's graph, traced once on the first training batch's shape
// (SummaryWriter::add_graph(module, input): the inference graph), in the train run's Graphs tab; a
// model that cannot be traced (its forward reads a tensor's value) is said on
// stderr once and training goes on.
//
// Differences from Keras: the graph is the model's forward only (Keras's also
// shows the loss and optimizer), no profiling.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "nabla/train/callbacks.h"

namespace nabla::summary {
class SummaryWriter;
}

namespace nabla::train {

struct TensorBoardOptions {
  int64_t update_freq = 0;  // 0: once per epoch (Keras's "epoch"); N > 0: also every N batches
  int histogram_freq = 0;   // N > 0: parameter histograms every N epochs; 0: none
  bool write_graph = true;  // the model's graph, once, at the first training batch (Keras's default: true)
};

class TensorBoard : public Callback {
 public:
  explicit TensorBoard(std::string log_dir, TensorBoardOptions options = {});
  TensorBoard(TensorBoard&&) noexcept;  // movable: a CallbackSpec takes it by value
  TensorBoard& operator=(TensorBoard&&) noexcept;
  ~TensorBoard() override;
  void on_train_begin(const Logs& logs) override;
  void on_train_batch_begin(int64_t batch, const Logs& logs) override;
  void on_train_batch_end(int64_t batch, const Logs& logs) override;
  void on_epoch_begin(int epoch, const Logs& logs) override;
  void on_epoch_end(int epoch, const Logs& logs) override;
  void on_train_end(const Logs& logs) override;
  bool rank_zero_only() const override { return true; }
  const std::string& log_dir() const { return log_dir_; }

 private:
  summary::SummaryWriter& writer(std::unique_ptr<summary::SummaryWriter>& w, const char* run);
  std::string log_dir_;
  TensorBoardOptions o_;
  int epoch_ = 0;
  bool graph_pending_ = false;  // write_graph and this fit() has not written it yet
  std::unique_ptr<summary::SummaryWriter> train_, validation_;  // opened when first written
};

}  // namespace nabla::train

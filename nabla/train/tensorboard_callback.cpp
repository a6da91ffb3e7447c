// See tensorboard_callback.h.
#include "nabla/train/tensorboard_callback.h"

#include <filesystem>
#include <iostream>

#include "nabla/core/error.h"
#include "nabla/core/grad_mode.h"
#include "nabla/summary/summary_writer.h"
#include "nabla/train/trainer.h"

namespace nabla::train {

TensorBoard::TensorBoard(std::string log_dir, TensorBoardOptions options) : log_dir_(std::move(log_dir)), o_(options) {
  NABLA_CHECK(!log_dir_.empty(), "TensorBoard: log_dir is empty");
  NABLA_CHECK(o_.update_freq >= 0, "TensorBoard: update_freq must be 0 (each epoch) or N >= 1 (every N batches), got ",
              o_.update_freq);
  NABLA_CHECK(o_.histogram_freq >= 0, "TensorBoard: histogram_freq must be >= 0 (0: no histograms), got ",
              o_.histogram_freq);
}

TensorBoard::TensorBoard(TensorBoard&&) noexcept = default;
TensorBoard& TensorBoard::operator=(TensorBoard&&) noexcept = default;
TensorBoard::~TensorBoard() = default;

summary::SummaryWriter& TensorBoard::writer(std::unique_ptr<summary::SummaryWriter>& w, const char* run) {
  // A writer flushes at each epoch's end (below): a long flush_secs is enough.
  if (!w) w = std::make_unique<summary::SummaryWriter>((std::filesystem::path(log_dir_) / run).string());
  return *w;
}

void TensorBoard::on_train_begin(const Logs&) {
  // The train run's file exists from the start (Keras's too), so that
  // `tensorboard --logdir` shows the run before its first epoch ends.
  writer(train_, "train");
  graph_pending_ = o_.write_graph;
}

void TensorBoard::on_train_batch_begin(int64_t, const Logs&) {
  if (!graph_pending_) return;
  graph_pending_ = false;
  try {
    writer(train_, "train").add_graph(trainer().model(), trainer().batch_input());
  } catch (const Error& e) {
    // The graph is a view of the model, not worth stopping training for.
    std::cerr << "TensorBoard: write_graph: the model's graph was not written: " << e.what()
              << " (TensorBoardOptions::write_graph = false skips it)\n";
  }
}

void TensorBoard::on_epoch_begin(int epoch, const Logs&) { epoch_ = epoch; }

void TensorBoard::on_train_batch_end(int64_t batch, const Logs& logs) {
  if (o_.update_freq == 0) return;
  const int64_t step = static_cast<int64_t>(epoch_) * trainer().steps_per_epoch() + batch + 1;
  if (step % o_.update_freq != 0) return;
  summary::SummaryWriter& w = writer(train_, "train");
  for (const auto& [key, value] : logs)
    if (key != "lr" && !key.starts_with("val_")) w.add_scalar("batch_" + key, value, step);
}

void TensorBoard::on_epoch_end(int epoch, const Logs& logs) {
  summary::SummaryWriter& train = writer(train_, "train");
  for (const auto& [key, value] : logs) {
    if (key == "lr")
      train.add_scalar("epoch_learning_rate", value, epoch);
    else if (key.starts_with("val_"))
      writer(validation_, "validation").add_scalar("epoch_" + key.substr(4), value, epoch);
    else
      train.add_scalar("epoch_" + key, value, epoch);
  }
  if (o_.histogram_freq > 0 && epoch % o_.histogram_freq == 0) {
    NoGradGuard no_grad;
    for (const auto& [name, p] : trainer().model().named_parameters())
      train.add_histogram(name, p.detach().cpu(), epoch);
  }
  train.flush();
  if (validation_) validation_->flush();
}

void TensorBoard::on_train_end(const Logs&) {
  train_.reset();  // flushed and closed
  validation_.reset();
}

}  // namespace nabla::train

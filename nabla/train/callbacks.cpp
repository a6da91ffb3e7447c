// See callbacks.h.
#include "nabla/train/callbacks.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "nabla/core/error.h"
#include "nabla/core/grad_mode.h"
#include "nabla/io/checkpoint.h"
#include "nabla/ops/ops.h"
#include "nabla/train/state.h"
#include "nabla/train/trainer.h"

namespace nabla::train {
namespace {

bool ends_with(const std::string& s, const std::string& tail) { return s.ends_with(tail); }

std::string exact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// "loss 0.4123", "accuracy 0.8521": Keras's progbar shows 4 decimals.
std::vector<std::string> shown(const Logs& logs, bool validation_too) {
  std::vector<std::string> out;
  auto add = [&](const std::string& k, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " %.4f", v);
    out.push_back(k + buf);
  };
  // The loss first, then the rest in key order; val_* after the training values.
  if (auto it = logs.find("loss"); it != logs.end()) add("loss", it->second);
  for (const auto& [k, v] : logs)
    if (k != "loss" && k != "lr" && !k.starts_with("val_")) add(k, v);
  if (validation_too) {
    if (auto it = logs.find("val_loss"); it != logs.end()) add("val_loss", it->second);
    for (const auto& [k, v] : logs)
      if (k != "val_loss" && k.starts_with("val_")) add(k, v);
  }
  return out;
}

// A list of doubles as a float64 tensor [n], and back (checked against `n`).
Tensor numbers_state(const std::vector<double>& v) { return tensor(v, {static_cast<int64_t>(v.size())}); }

std::vector<double> numbers_from(const nn::StateDict& state, const std::string& key, std::size_t n, const char* api) {
  NABLA_CHECK(state.contains(key), api, ": the saved state has no entry '", key, "'");
  Tensor t = state.at(key).to(kCPU).contiguous();
  NABLA_CHECK(t.dtype() == kFloat64 && t.dim() == 1 && t.numel() == static_cast<int64_t>(n), api,
              ": the saved state's entry '", key, "' should be float64 [", n, "] (one per parameter group), got ",
              t.dtype(), " ", t.sizes());
  return {t.data_ptr<double>(), t.data_ptr<double>() + n};
}

}  // namespace

std::optional<ResumePoint> Callback::resume_point() { return std::nullopt; }

Trainer& Callback::trainer() const {
  NABLA_CHECK(trainer_ != nullptr, "Callback::trainer: the callback is not inside a Trainer::fit() call");
  return *trainer_;
}

bool monitor_is_max(const std::string& monitor, const std::string& mode, const char* api) {
  if (mode == "min") return false;
  if (mode == "max") return true;
  NABLA_CHECK(mode == "auto", api, ": mode must be \"min\", \"max\" or \"auto\", got \"", mode, "\"");
  for (const char* tail : {"acc", "accuracy", "auc", "precision", "recall", "f1"})
    if (ends_with(monitor, tail)) return true;
  return false;
}

double monitored(const Logs& logs, const std::string& monitor, const char* api) {
  auto it = logs.find(monitor);
  if (it != logs.end()) return it->second;
  std::string keys;
  for (const auto& [k, v] : logs) keys += (keys.empty() ? "" : ", ") + k;
  fail(api, ": monitor '", monitor, "' is not in the logs (they have: ", keys,
       "); val_* values need validation_data or validation_split");
}

// --- ProgressBarCallback ---

ProgressBarCallback::ProgressBarCallback(int verbose, std::ostream* out, int terminal)
    : verbose_(verbose),
      out_(out ? out : &std::cout),
      terminal_(terminal < 0 ? (out == nullptr && isatty(STDOUT_FILENO) != 0) : terminal != 0) {
  NABLA_CHECK(verbose >= 0 && verbose <= 2, "ProgressBarCallback: verbose must be 0, 1 or 2, got ", verbose);
}

void ProgressBarCallback::on_train_begin(const Logs&) {
  epochs_ = trainer().epochs();
  steps_ = trainer().steps_per_epoch();
}

void ProgressBarCallback::on_epoch_begin(int epoch, const Logs&) {
  if (verbose_ == 0) return;
  auto mode = verbose_ == 2 ? ProgressBar::Mode::None : terminal_ ? ProgressBar::Mode::Bar : ProgressBar::Mode::Lines;
  bar_ = std::make_unique<ProgressBar>(*out_, mode,
                                       "epoch " + std::to_string(epoch + 1) + "/" + std::to_string(epochs_), steps_);
  samples_ = 0;
}

void ProgressBarCallback::on_train_batch_end(int64_t batch, const Logs& logs) {
  if (!bar_) return;
  samples_ += trainer().last_batch_size();
  bar_->update(batch + 1, samples_, shown(logs, false));
}

void ProgressBarCallback::on_epoch_end(int epoch, const Logs& logs) {
  if (!bar_) return;
  if (verbose_ == 1) {
    bar_->finish();
    std::vector<std::string> v = shown(logs, true);
    std::string line = "epoch " + std::to_string(epoch + 1) + "/" + std::to_string(epochs_) + ":";
    for (const std::string& s : v) line += "  " + s;
    char buf[64];
    std::snprintf(buf, sizeof buf, "  (%.1f s)", bar_->elapsed_s());
    *out_ << line << buf << '\n' << std::flush;
  } else {
    std::string line = "epoch " + std::to_string(epoch + 1) + "/" + std::to_string(epochs_) + " - " +
                       format_duration(bar_->elapsed_s());
    for (const std::string& s : shown(logs, true)) line += " - " + s;
    *out_ << line << '\n' << std::flush;
  }
  bar_.reset();
}

// --- ModelCheckpoint ---

ModelCheckpoint::ModelCheckpoint(std::string path, CheckpointOptions options)
    : path_(std::move(path)), o_(std::move(options)), max_(monitor_is_max(o_.monitor, o_.mode, "ModelCheckpoint")) {
  NABLA_CHECK(!path_.empty(), "ModelCheckpoint: the path is empty");
}

void ModelCheckpoint::on_train_begin(const Logs&) {
  best_ = max_ ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
}

void ModelCheckpoint::on_epoch_end(int epoch, const Logs& logs) {
  io::Metadata meta{{"epoch", std::to_string(epoch + 1)}};
  if (o_.save_best_only) {
    double current = monitored(logs, o_.monitor, "ModelCheckpoint");
    // NaN never improves (every comparison with it is false).
    if (!(max_ ? current > best_ : current < best_)) return;
    best_ = current;
  }
  if (auto it = logs.find(o_.monitor); it != logs.end()) meta[o_.monitor] = exact(it->second);
  std::string path = path_;
  for (auto at = path.find("{epoch}"); at != std::string::npos; at = path.find("{epoch}"))
    path.replace(at, 7, std::to_string(epoch + 1));
  if (auto dir = std::filesystem::path(path).parent_path(); !dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    NABLA_CHECK(!ec, "ModelCheckpoint: cannot create the directory '", dir.string(), "': ", ec.message());
  }
  io::save_checkpoint(path, trainer().model(), o_.save_optimizer ? &trainer().optimizer() : nullptr, meta);
}

nn::StateDict ModelCheckpoint::state_dict() const { return {{"best", state_number(best_)}}; }

void ModelCheckpoint::load_state_dict(const nn::StateDict& state) {
  best_ = state_number(state, "best", "ModelCheckpoint");
}

// --- EarlyStopping ---

EarlyStopping::EarlyStopping(EarlyStoppingOptions options)
    : o_(std::move(options)), max_(monitor_is_max(o_.monitor, o_.mode, "EarlyStopping")) {
  NABLA_CHECK(o_.patience >= 0, "EarlyStopping: patience must be >= 0, got ", o_.patience);
  NABLA_CHECK(o_.min_delta >= 0, "EarlyStopping: min_delta must be >= 0, got ", o_.min_delta,
              " (its sign follows the mode)");
}

void EarlyStopping::on_train_begin(const Logs&) {
  best_ = max_ ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  wait_ = stopped_epoch_ = best_epoch_ = 0;
  best_weights_ = {};
}

void EarlyStopping::on_epoch_end(int epoch, const Logs& logs) {
  double current = monitored(logs, o_.monitor, "EarlyStopping");
  auto snapshot = [&] {
    best_weights_ = {};
    for (const auto& [name, t] : trainer().model().state_dict()) best_weights_.insert(name, t.detach().clone());
  };
  if (o_.restore_best_weights && best_weights_.empty()) snapshot();
  ++wait_;
  bool improved = max_ ? current - o_.min_delta > best_ : current + o_.min_delta < best_;
  if (improved) {
    best_ = current;
    best_epoch_ = epoch;
    if (o_.restore_best_weights) snapshot();
    wait_ = 0;
    return;
  }
  if (wait_ >= o_.patience && epoch > 0) {
    stopped_epoch_ = epoch;
    trainer().stop_training = true;
    if (o_.restore_best_weights && !best_weights_.empty()) {
      NoGradGuard no_grad;
      trainer().model().load_state_dict(best_weights_);
    }
  }
}

nn::StateDict EarlyStopping::state_dict() const {
  nn::StateDict s = {{"best", state_number(best_)},
                     {"wait", state_number(wait_)},
                     {"stopped_epoch", state_number(stopped_epoch_)},
                     {"best_epoch", state_number(best_epoch_)}};
  for (const auto& [name, t] : best_weights_) s.insert("best_weights." + name, t);
  return s;
}

void EarlyStopping::load_state_dict(const nn::StateDict& state) {
  const char* api = "EarlyStopping";
  best_ = state_number(state, "best", api);
  wait_ = static_cast<int>(state_number(state, "wait", api));
  stopped_epoch_ = static_cast<int>(state_number(state, "stopped_epoch", api));
  best_epoch_ = static_cast<int>(state_number(state, "best_epoch", api));
  best_weights_ = state_part(state, "best_weights.");
  NABLA_CHECK(best_weights_.empty() || o_.restore_best_weights, api,
              ": the saved state holds best weights, but restore_best_weights is off");
}

// --- LearningRateScheduler ---

LearningRateScheduler::LearningRateScheduler(std::shared_ptr<optim::LRScheduler> scheduler, Every every)
    : scheduler_(std::move(scheduler)), every_(every) {
  NABLA_CHECK(scheduler_ != nullptr, "LearningRateScheduler: the scheduler is null");
}

LearningRateScheduler::LearningRateScheduler(std::function<double(int, double)> schedule)
    : schedule_(std::move(schedule)) {
  NABLA_CHECK(static_cast<bool>(schedule_), "LearningRateScheduler: the schedule function is empty");
}

void LearningRateScheduler::on_epoch_begin(int epoch, const Logs&) {
  if (!schedule_) return;
  for (optim::ParamGroup& g : trainer().optimizer().param_groups()) {
    double lr = schedule_(epoch, g.lr());
    NABLA_CHECK(std::isfinite(lr) && lr >= 0, "LearningRateScheduler: the schedule returned lr ", lr, " for epoch ",
                epoch, "; expected a finite number >= 0");
    g.set_lr(lr);
  }
}

void LearningRateScheduler::on_epoch_end(int, const Logs&) {
  if (scheduler_ && every_ == Every::Epoch) scheduler_->step();
}

void LearningRateScheduler::on_train_batch_end(int64_t, const Logs&) {
  if (scheduler_ && every_ == Every::Batch) scheduler_->step();
}

nn::StateDict LearningRateScheduler::state_dict() const {
  if (!scheduler_) return {};
  optim::LRSchedulerState s = scheduler_->state_dict();
  return {{"last_epoch", state_number(static_cast<double>(s.last_epoch))},
          {"step_count", state_number(static_cast<double>(s.step_count))},
          {"base_lrs", numbers_state(s.base_lrs)},
          {"last_lr", numbers_state(s.last_lr)}};
}

void LearningRateScheduler::load_state_dict(const nn::StateDict& state) {
  const char* api = "LearningRateScheduler";
  if (!scheduler_) {
    NABLA_CHECK(state.empty(), api, ": the saved state is a scheduler's, but this one has a schedule function");
    return;
  }
  const std::size_t groups = scheduler_->base_lrs().size();
  optim::LRSchedulerState s;
  s.last_epoch = static_cast<int64_t>(state_number(state, "last_epoch", api));
  s.step_count = static_cast<int64_t>(state_number(state, "step_count", api));
  s.base_lrs = numbers_from(state, "base_lrs", groups, api);
  s.last_lr = numbers_from(state, "last_lr", groups, api);
  scheduler_->load_state_dict(s);
}

// --- ReduceLROnPlateau ---

ReduceLROnPlateau::ReduceLROnPlateau(std::string monitor, optim::PlateauOptions options)
    : monitor_(std::move(monitor)), o_(std::move(options)) {}

void ReduceLROnPlateau::on_train_begin(const Logs&) {
  plateau_ = std::make_unique<optim::ReduceLROnPlateau>(trainer().optimizer(), o_);
}

void ReduceLROnPlateau::on_epoch_end(int, const Logs& logs) {
  plateau_->step(monitored(logs, monitor_, "ReduceLROnPlateau"));
}

nn::StateDict ReduceLROnPlateau::state_dict() const {
  if (!plateau_) return {};
  optim::PlateauState s = plateau_->state_dict();
  return {{"best", state_number(s.best)},
          {"num_bad_epochs", state_number(static_cast<double>(s.num_bad_epochs))},
          {"cooldown_counter", state_number(static_cast<double>(s.cooldown_counter))},
          {"last_epoch", state_number(static_cast<double>(s.last_epoch))},
          {"last_lr", numbers_state(s.last_lr)}};
}

void ReduceLROnPlateau::load_state_dict(const nn::StateDict& state) {
  const char* api = "ReduceLROnPlateau";
  NABLA_CHECK(plateau_ != nullptr, api, ": load_state_dict outside fit() (the plateau is built in on_train_begin)");
  optim::PlateauState s;
  s.best = state_number(state, "best", api);
  s.num_bad_epochs = static_cast<int64_t>(state_number(state, "num_bad_epochs", api));
  s.cooldown_counter = static_cast<int64_t>(state_number(state, "cooldown_counter", api));
  s.last_epoch = static_cast<int64_t>(state_number(state, "last_epoch", api));
  s.last_lr = numbers_from(state, "last_lr", plateau_->get_last_lr().size(), api);
  plateau_->load_state_dict(s);
}

// --- CSVLogger ---

CSVLogger::CSVLogger(std::string path, char separator, bool append)
    : path_(std::move(path)), sep_(separator), append_(append) {}

void CSVLogger::on_train_begin(const Logs&) {
  keys_.clear();
  const bool continuing = append_ && std::filesystem::exists(path_) && std::filesystem::file_size(path_) > 0;
  file_ = std::make_unique<std::ofstream>(path_, append_ ? std::ios::app : std::ios::trunc);
  NABLA_CHECK(file_->good(), "CSVLogger: cannot open '", path_, "' for writing");
  if (continuing) {  // the header is there: take its columns
    std::ifstream in(path_);
    std::string header;
    std::getline(in, header);
    std::string key;
    for (char c : header + sep_) {
      if (c == sep_) {
        if (key != "epoch") keys_.push_back(key);
        key.clear();
      } else {
        key += c;
      }
    }
  }
}

void CSVLogger::on_epoch_end(int epoch, const Logs& logs) {
  if (keys_.empty()) {
    for (const auto& [k, v] : logs) keys_.push_back(k);
    *file_ << "epoch";
    for (const std::string& k : keys_) *file_ << sep_ << k;
    *file_ << '\n';
  }
  *file_ << epoch;
  for (const std::string& k : keys_) {
    auto it = logs.find(k);
    *file_ << sep_ << (it == logs.end() ? std::string("NA") : exact(it->second));  // "NA" as Keras
  }
  *file_ << '\n' << std::flush;
  NABLA_CHECK(file_->good(), "CSVLogger: writing '", path_, "' failed");
}

void CSVLogger::on_train_end(const Logs&) { file_.reset(); }

// --- TerminateOnNaN ---

void TerminateOnNaN::on_train_batch_end(int64_t batch, const Logs& logs) {
  auto it = logs.find("loss");
  if (it == logs.end() || std::isfinite(it->second)) return;
  std::cout << "TerminateOnNaN: batch " << batch << ": invalid loss " << it->second << ", terminating training\n";
  terminated_ = true;
  trainer().stop_training = true;
}

}  // namespace nabla::train

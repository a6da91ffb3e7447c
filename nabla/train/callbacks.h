// Callbacks of fit() (Keras's keras.callbacks): hooks at the start and end of
// training, of each epoch and of each training batch, with the logs: the
// running values of the loss and metrics ("loss", "accuracy"), and at an
// epoch's end also the validation values ("val_loss", ...) and "lr".
//
// Epochs are counted from 0 in the hooks, the History and CSVLogger (as in
// Keras); displays and checkpoint file names count from 1 ("epoch 1/5").
// A callback reaches the model, the optimizer and stop_training through
// trainer(), set by fit() before on_train_begin.
//
// Backups (BackupAndRestore): a callback whose state changes how training
// goes on (EarlyStopping's wait and best, a scheduler's progress) returns it
// from state_dict() and takes it back in load_state_dict(); a resumed fit()
// calls load_state_dict() after every on_train_begin, at the point of the run
// where the backup was taken. The built-in callbacks do; the defaults save
// nothing.
#pragma once
#include <fstream>
#include <functional>
#include <iosfwd>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nabla/nn/state_dict.h"
#include "nabla/optim/lr_scheduler.h"
#include "nabla/optim/reduce_lr_on_plateau.h"
#include "nabla/train/progress.h"

namespace nabla::train {

class Trainer;
struct ResumePoint;
using Logs = std::map<std::string, double>;

class Callback {
 public:
  virtual ~Callback() = default;
  virtual void on_train_begin(const Logs& logs) {}
  virtual void on_train_end(const Logs& logs) {}
  virtual void on_epoch_begin(int epoch, const Logs& logs) {}
  virtual void on_epoch_end(int epoch, const Logs& logs) {}
  virtual void on_train_batch_begin(int64_t batch, const Logs& logs) {}
  virtual void on_train_batch_end(int64_t batch, const Logs& logs) {}

  // The callback's state for a backup (state.h), and back.
  virtual nn::StateDict state_dict() const { return {}; }
  virtual void load_state_dict(const nn::StateDict& state) {}
  // A callback that restores interrupted runs (BackupAndRestore) returns
  // where fit() goes on; asked after every on_train_begin. Default: none.
  virtual std::optional<ResumePoint> resume_point();
  // True for a callback that saves the others' state (BackupAndRestore):
  // fit() calls it after the others at every hook, so it sees what they left.
  virtual bool runs_last() const { return false; }
  // True for a callback whose only effect is output (a display, files): in a
  // data-parallel fit() (FitOptions::distributed) only rank 0 calls its hooks,
  // so one process prints and writes. The others run on every rank.
  virtual bool rank_zero_only() const { return false; }

  void set_trainer(Trainer* trainer) { trainer_ = trainer; }
  Trainer& trainer() const;  // nabla::Error when called outside fit()

 private:
  Trainer* trainer_ = nullptr;
};
using CallbackPtr = std::shared_ptr<Callback>;

// "min", "max" or "auto": auto is max for a monitor ending in "acc",
// "accuracy", "auc", "precision", "recall" or "f1", min otherwise (Keras).
// Returns true for max; `api` names the caller in the Error for a bad mode.
bool monitor_is_max(const std::string& monitor, const std::string& mode, const char* api);
// logs[monitor], or nabla::Error naming `api` and the keys that are there.
double monitored(const Logs& logs, const std::string& monitor, const char* api);

// verbose 1: Keras's progbar (redrawn on a terminal; about ten plain lines per
// epoch otherwise), verbose 2: one line per epoch. fit() adds one by itself
// for verbose > 0 when the callbacks have none.
class ProgressBarCallback : public Callback {
 public:
  explicit ProgressBarCallback(int verbose = 1, std::ostream* out = nullptr, int terminal = -1);
  void on_train_begin(const Logs& logs) override;
  bool rank_zero_only() const override { return true; }
  void on_epoch_begin(int epoch, const Logs& logs) override;
  void on_train_batch_end(int64_t batch, const Logs& logs) override;
  void on_epoch_end(int epoch, const Logs& logs) override;

 private:
  int verbose_;
  std::ostream* out_;
  bool terminal_;
  int epochs_ = 0;
  int64_t steps_ = 0, samples_ = 0;
  std::unique_ptr<ProgressBar> bar_;
};

struct CheckpointOptions {
  std::string monitor = "val_loss";
  std::string mode = "auto";
  bool save_best_only = false;
  bool save_optimizer = true;  // the optimizer's state too (io::save_checkpoint)
};

// Saves the model (and optimizer) with io::save_checkpoint, atomically, at
// each epoch's end; with save_best_only only when the monitored value improved
// on the best so far. "{epoch}" in the path becomes the epoch number (from 1).
// The metadata holds "epoch" and the monitored value.
class ModelCheckpoint : public Callback {
 public:
  explicit ModelCheckpoint(std::string path, CheckpointOptions options = {});
  void on_train_begin(const Logs& logs) override;
  bool rank_zero_only() const override { return true; }
  void on_epoch_end(int epoch, const Logs& logs) override;
  nn::StateDict state_dict() const override;
  void load_state_dict(const nn::StateDict& state) override;
  double best() const { return best_; }

 private:
  std::string path_;
  CheckpointOptions o_;
  bool max_;
  double best_ = 0;
};

struct EarlyStoppingOptions {
  std::string monitor = "val_loss";
  double min_delta = 0;  // a change of at most this much is no improvement
  int patience = 0;      // epochs without improvement before stopping
  std::string mode = "auto";
  bool restore_best_weights = false;  // on stopping, load the best epoch's weights
};

// Keras's EarlyStopping: stops when the monitored value has not improved by
// more than min_delta for `patience` epochs. restore_best_weights restores the
// model (parameters and buffers) of the best epoch when it stops training, not
// when training ends by running out of epochs (as Keras).
class EarlyStopping : public Callback {
 public:
  explicit EarlyStopping(EarlyStoppingOptions options = {});
  void on_train_begin(const Logs& logs) override;
  void on_epoch_end(int epoch, const Logs& logs) override;
  // wait, best, the epochs, and the best weights when restore_best_weights is set.
  nn::StateDict state_dict() const override;
  void load_state_dict(const nn::StateDict& state) override;
  int stopped_epoch() const { return stopped_epoch_; }  // 0 if it never stopped training
  int best_epoch() const { return best_epoch_; }
  double best() const { return best_; }

 private:
  EarlyStoppingOptions o_;
  bool max_;
  double best_ = 0;
  int wait_ = 0, stopped_epoch_ = 0, best_epoch_ = 0;
  nn::StateDict best_weights_;
};

// Steps an optim scheduler (built over fit()'s optimizer) after each epoch or
// after each training batch; or sets lr = schedule(epoch, lr) at each epoch's
// start (Keras's function form).
class LearningRateScheduler : public Callback {
 public:
  enum class Every { Epoch, Batch };
  explicit LearningRateScheduler(std::shared_ptr<optim::LRScheduler> scheduler, Every every = Every::Epoch);
  explicit LearningRateScheduler(std::function<double(int epoch, double lr)> schedule);
  void on_epoch_begin(int epoch, const Logs& logs) override;
  void on_epoch_end(int epoch, const Logs& logs) override;
  void on_train_batch_end(int64_t batch, const Logs& logs) override;
  // The scheduler's progress (the function form keeps its state in the optimizer's lr).
  nn::StateDict state_dict() const override;
  void load_state_dict(const nn::StateDict& state) override;

 private:
  std::shared_ptr<optim::LRScheduler> scheduler_;
  Every every_ = Every::Epoch;
  std::function<double(int, double)> schedule_;
};

// optim::ReduceLROnPlateau (PyTorch's rule: mode, factor, patience, threshold,
// cooldown, min_lr) stepped with logs[monitor] at each epoch's end.
class ReduceLROnPlateau : public Callback {
 public:
  explicit ReduceLROnPlateau(std::string monitor = "val_loss", optim::PlateauOptions options = {});
  void on_train_begin(const Logs& logs) override;
  void on_epoch_end(int epoch, const Logs& logs) override;
  nn::StateDict state_dict() const override;
  void load_state_dict(const nn::StateDict& state) override;

 private:
  std::string monitor_;
  optim::PlateauOptions o_;
  std::unique_ptr<optim::ReduceLROnPlateau> plateau_;
};

// One CSV row per epoch: "epoch" then the logs' keys in sorted order (Keras),
// values with %.17g. append continues an existing file without a new header.
class CSVLogger : public Callback {
 public:
  explicit CSVLogger(std::string path, char separator = ',', bool append = false);
  void on_train_begin(const Logs& logs) override;
  bool rank_zero_only() const override { return true; }
  void on_epoch_end(int epoch, const Logs& logs) override;
  void on_train_end(const Logs& logs) override;

 private:
  std::string path_;
  char sep_;
  bool append_;
  std::vector<std::string> keys_;
  std::unique_ptr<std::ofstream> file_;
};

// Stops training at the first batch whose loss is NaN or infinite.
class TerminateOnNaN : public Callback {
 public:
  void on_train_batch_end(int64_t batch, const Logs& logs) override;
  bool terminated() const { return terminated_; }

 private:
  bool terminated_ = false;
};

}  // namespace nabla::train

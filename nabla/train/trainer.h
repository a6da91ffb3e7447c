// Trainer: Keras's Model.compile / fit / evaluate / predict over any nn::Module.
//
//   train::Trainer trainer(model, {.optimizer = std::make_shared<optim::Adam>(model->parameters()),
//                                  .metrics = {"accuracy"}});
//   train::History h = trainer.fit(x, y, {.epochs = 5, .batch_size = 64, .validation_split = 0.1});
//   train::Logs test = trainer.evaluate(x_test, y_test);   // {"loss": ..., "accuracy": ...}
//   Tensor logits = trainer.predict(x_test);
//
// Data (train::Data) is tensors (x, y), a Dataset or a DataLoader. Tensors and
// Datasets are batched by fit() (batch_size, shuffle, collate, num_workers of
// FitOptions); a DataLoader is used as it is, so those options must stay at
// their defaults with one. The training step is compiled with nabla::compile
// when it can be traced, else eager (FitOptions::jit, train_step.h).
// docs/train_api.md describes it all.
#pragma once
#include <concepts>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nabla/core/device.h"
#include "nabla/data/dataloader.h"
#include "nabla/nn/module.h"
#include "nabla/optim/optimizer.h"
#include "nabla/train/callbacks.h"
#include "nabla/train/data_parallel.h"
#include "nabla/train/metrics.h"

namespace nabla::train {

using LossFn = std::function<Tensor(const Tensor& output, const Tensor& target)>;

// "cross_entropy" (class indices or probabilities), "mse", "l1", "nll",
// "bce" (probabilities), "bce_with_logits"; others raise nabla::Error.
LossFn make_loss(const std::string& name);

// A metric given by name ("accuracy", see make_metric) or as an object.
struct MetricSpec {
  MetricSpec(const char* name) : metric(make_metric(name)) {}
  MetricSpec(const std::string& name) : metric(make_metric(name)) {}
  template <class M>
  requires std::derived_from<M, Metric> MetricSpec(std::shared_ptr<M> m) : metric(std::move(m)) {}
  MetricPtr metric;
};

// A callback given as an object (copied into fit()) or as a shared_ptr (to
// read it afterwards: EarlyStopping::stopped_epoch()).
struct CallbackSpec {
  template <class C>
  requires std::derived_from<C, Callback> CallbackSpec(C callback)
      : callback(std::make_shared<C>(std::move(callback))) {}
  template <class C>
  requires std::derived_from<C, Callback> CallbackSpec(std::shared_ptr<C> callback) : callback(std::move(callback)) {}
  CallbackPtr callback;
};

struct CompileOptions {
  std::shared_ptr<optim::Optimizer> optimizer;  // over the model's parameters (required)
  LossFn loss = make_loss("cross_entropy");
  std::vector<MetricSpec> metrics = {};
  Device device = kCPU;  // the model is moved there; batches are copied there
};

// What fit() trains on or evaluate()/predict() read.
class Data {
 public:
  Data(Tensor x, Tensor y = Tensor());  // samples along dim 0 of both
  Data(data::DatasetPtr dataset);
  template <class D>
  Data(std::shared_ptr<D> dataset) : Data(data::DatasetPtr(std::move(dataset))) {}
  Data(data::DataLoader& loader);  // used as it is; must outlive the call
  bool is_loader() const { return loader_ != nullptr; }
  int64_t size() const;  // samples (a loader: its dataset's size is unknown, -1)
  // The first `n` samples and the rest (validation_split); not for a loader.
  std::pair<Data, Data> split_at(int64_t n, const char* api) const;
  data::DatasetPtr dataset() const { return dataset_; }
  data::DataLoader* loader() const { return loader_; }

 private:
  data::DatasetPtr dataset_;
  data::DataLoader* loader_ = nullptr;
  Tensor x_, y_;
};

// Which training step fit() runs (train::TrainStep, train_step.h): Auto
// compiles it with nabla::compile when it can be traced and otherwise trains
// eagerly, printing why once (verbose > 0); On compiles it or raises
// nabla::Error with the reason; Off trains eagerly.
enum class Jit { Auto, On, Off };

struct FitOptions {
  int epochs = 1;
  int64_t batch_size = 0;               // tensors and Datasets; 0: 32 (Keras)
  std::optional<Data> validation_data;  // evaluated at each epoch's end
  double validation_split = 0;          // in [0, 1): the LAST fraction of the data, before shuffling (Keras)
  bool shuffle = true;                  // tensors and Datasets: a new order each epoch
  std::vector<CallbackSpec> callbacks = {};
  int initial_epoch = 0;  // the epoch to start at (resuming a run)
  int verbose = 1;        // 0 silent, 1 progress bar, 2 one line per epoch
  Jit jit = Jit::Auto;
  data::CollateFn collate = {};       // tensors and Datasets: how samples become a batch (default stacks)
  int num_workers = 0;                // tensors and Datasets: DataLoader worker threads
  uint64_t seed = 0;                  // shuffling order; 0: drawn from the global generator
  int64_t validation_batch_size = 0;  // 0: batch_size
  // Data-parallel training over several processes (data_parallel.h): one
  // replica per rank, each on its shard of the data, gradients averaged
  // before every step. distributed::FitDataParallel (nabla/distributed/fit.h)
  // is the MPI one. batch_size is then per rank. Compiled (jit Auto / On),
  // forward and backward run as a graph and the all-reduce and the optimizer
  // step eagerly (train_step.h; docs/distributed.md, "DDP with compile()").
  DataParallelPtr distributed = nullptr;
};

struct EvaluateOptions {
  int64_t batch_size = 0;  // tensors and Datasets; 0: 32
  data::CollateFn collate = {};
  int num_workers = 0;
};

// Every value of the epochs' logs: history["loss"][e], history["val_accuracy"][e], ...
struct History {
  std::vector<int> epoch;  // the epochs run, from 0 (initial_epoch onwards)
  std::map<std::string, std::vector<double>> history;
  const std::vector<double>& operator[](const std::string& key) const;  // Error listing the keys when missing
};

// Where an interrupted fit() goes on: what a callback that restores runs
// (BackupAndRestore) returns from Callback::resume_point().
struct ResumePoint {
  int epoch = 0;                       // the epoch to run next (counted from 0)
  int64_t batch = 0;                   // its training batches already done (0: it starts afresh)
  bool stop_training = false;          // the run had been stopped (EarlyStopping) before `epoch`
  uint64_t shuffle_seed = 0;           // the seed of fit()'s own loader (drawn when FitOptions::seed is 0)
  uint64_t loader_epoch = 0;           // the training loader's epoch counter when `epoch` begins
  History history;                     // the epochs finished
  nn::StateDict loss;                  // batch > 0: the running epoch's loss accumulator (Mean::state_dict)
  std::vector<nn::StateDict> metrics;  // and each metric's, in the order of Trainer::metrics()
  // Restores the rest (model, optimizer, generator, the callbacks' state). fit()
  // calls it where the backup was taken: before on_epoch_begin(epoch) when batch
  // is 0, after it otherwise (what callbacks do there is then replaced, as it
  // was already done before the backup); after the loop if no epoch is left.
  std::function<void()> restore;
};

class Trainer {
 public:
  Trainer(nn::ModulePtr model, CompileOptions options);

  History fit(const Data& train, FitOptions options = {});
  History fit(const Tensor& x, const Tensor& y, FitOptions options = {}) { return fit(Data(x, y), std::move(options)); }
  // The mean loss and each metric over `data` in eval mode, without gradients.
  Logs evaluate(const Data& data, EvaluateOptions options = {});
  Logs evaluate(const Tensor& x, const Tensor& y, EvaluateOptions options = {}) {
    return evaluate(Data(x, y), std::move(options));
  }
  // The model's outputs over `data` (targets, if any, are ignored), concatenated along dim 0.
  Tensor predict(const Data& data, EvaluateOptions options = {});

  nn::Module& model() { return *model_; }
  const nn::ModulePtr& model_ptr() const { return model_; }
  optim::Optimizer& optimizer() { return *options_.optimizer; }
  const std::vector<MetricPtr>& metrics() const { return metrics_; }
  Device device() const { return options_.device; }
  // Set by a callback (EarlyStopping, TerminateOnNaN): fit() ends after the
  // current batch, completing the epoch's end (validation, on_epoch_end).
  bool stop_training = false;
  // While fit() runs (Keras's callback params): its epochs and batches per epoch.
  int epochs() const { return epochs_; }
  int64_t steps_per_epoch() const { return steps_; }
  int64_t last_batch_size() const { return last_batch_size_; }  // samples in the last training batch
  // The inputs of the training batch being run, set before on_train_batch_begin
  // (TensorBoard traces the model's graph on the first one).
  const Tensor& batch_input() const { return batch_input_; }
  // While fit() runs, what a backup of the run saves (BackupAndRestore);
  // nabla::Error outside fit().
  const History& history() const;                     // the epochs finished so far
  const Mean& epoch_loss() const;                     // the running epoch's loss accumulator
  const std::vector<CallbackPtr>& callbacks() const;  // in the order fit() calls them
  const data::DataLoader& train_loader() const;       // the training batches' loader
  // While a data-parallel fit() runs (FitOptions::distributed): its
  // DataParallel, this process's rank and the number of ranks; otherwise
  // nullptr, 0 and 1.
  DataParallel* data_parallel() const { return running_.parallel; }
  int rank() const { return running_.parallel ? running_.parallel->rank() : 0; }
  int world_size() const { return running_.parallel ? running_.parallel->world_size() : 1; }

 private:
  struct Running {
    const History* history = nullptr;
    const Mean* loss = nullptr;
    const std::vector<CallbackPtr>* callbacks = nullptr;
    const data::DataLoader* loader = nullptr;
    DataParallel* parallel = nullptr;
  };
  Running running_;
  // `samples`, if given, receives the number of samples evaluated.
  Logs evaluate_impl(const Data& data, const EvaluateOptions& options, const char* api, double* samples = nullptr);
  int epochs_ = 0;
  int64_t steps_ = 0, last_batch_size_ = 0;
  Tensor batch_input_;
  nn::ModulePtr model_;
  CompileOptions options_;
  std::vector<MetricPtr> metrics_;
};

}  // namespace nabla::train

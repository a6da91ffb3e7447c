// See trainer.h. The loop follows Keras's fit(): callbacks around each batch
// and epoch, validation at the epoch's end, stop_training checked after every
// batch.
#include "nabla/train/trainer.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "nabla/core/error.h"
#include "nabla/core/grad_mode.h"
#include "nabla/core/random.h"
#include "nabla/data/device_prefetcher.h"
#include "nabla/data/distributed_sampler.h"
#include "nabla/ops/ops.h"
#include "nabla/train/train_step.h"

namespace nabla::train {
namespace {

constexpr int64_t kDefaultBatchSize = 32;  // Keras's

// Calls fn(batch) for each batch of an epoch of `loader` on `device` (copied
// there one batch ahead by a DevicePrefetcher when it is not the CPU), until
// fn returns false.
template <class Fn>
void for_each_batch(data::DataLoader& loader, Device device, Fn&& fn) {
  if (device.is_cpu()) {
    for (const data::Example& batch : loader)
      if (!fn(batch)) return;
  } else {
    for (const data::Example& batch : data::DevicePrefetcher(loader, device))
      if (!fn(batch)) return;
  }
}

// A loader over `d`, or d's own loader (whose options must then be left alone).
struct Batches {
  std::unique_ptr<data::DataLoader> owned;
  data::DataLoader* loader = nullptr;
};

Batches batches(const Data& d, int64_t batch_size, bool shuffle, uint64_t seed, const data::CollateFn& collate,
                int workers, const char* api, data::SamplerPtr sampler = nullptr) {
  Batches b;
  if (d.is_loader()) {
    NABLA_CHECK(batch_size == 0 && !collate && workers == 0, api,
                ": batch_size, collate and num_workers are the DataLoader's own; leave them unset when passing a "
                "DataLoader (got batch_size ",
                batch_size, ", ", collate ? "a collate" : "no collate", ", num_workers ", workers, ")");
    b.loader = d.loader();
    return b;
  }
  NABLA_CHECK(batch_size >= 0, api, ": batch_size must be >= 1 (0 for the default 32), got ", batch_size);
  NABLA_CHECK(workers >= 0, api, ": num_workers must be >= 0, got ", workers);
  b.owned = std::make_unique<data::DataLoader>(
      d.dataset(), data::DataLoaderOptions{.batch_size = batch_size > 0 ? batch_size : kDefaultBatchSize,
                                           .shuffle = shuffle,
                                           .seed = seed,
                                           .num_workers = workers,
                                           .collate = collate,
                                           .sampler = std::move(sampler)});
  b.loader = b.owned.get();
  return b;
}

Logs metric_logs(const Mean& loss, const std::vector<MetricPtr>& metrics, const std::string& prefix = "") {
  Logs logs{{prefix + "loss", loss.result()}};
  for (const MetricPtr& m : metrics) logs[prefix + m->name()] = m->result();
  return logs;
}

// --- Data-parallel fit() (FitOptions::distributed, data_parallel.h).

// Logs averaged over ranks, each rank's values weighted by the samples it
// saw: the whole data's loss and accuracy, the same on every rank.
Logs reduced_logs(DataParallel& dp, const Logs& local, double samples) {
  std::vector<double> v{samples};
  for (const auto& [key, value] : local)
    v.push_back(samples > 0 ? value * samples : 0);  // a map: the same order everywhere
  dp.all_reduce_sum(v);
  Logs logs;
  std::size_t i = 1;
  for (const auto& [key, value] : local) logs[key] = v[0] > 0 ? v[i++] / v[0] : 0;
  return logs;
}

// True when any rank's callbacks stopped training: all ranks stop together.
// The all-reduce also orders what rank 0 wrote in its callbacks (checkpoints,
// backups) before anything any rank does next.
bool any_rank(DataParallel& dp, bool flag) {
  std::vector<double> v{flag ? 1.0 : 0.0};
  dp.all_reduce_sum(v);
  return v[0] > 0;
}

// Rank 0's shuffling seed on every rank (in two exact 32-bit halves).
uint64_t rank_zero_seed(DataParallel& dp, uint64_t seed) {
  std::vector<double> v{0, 0};
  if (dp.rank() == 0) v = {static_cast<double>(seed >> 32), static_cast<double>(seed & 0xffffffffu)};
  dp.all_reduce_sum(v);
  return (static_cast<uint64_t>(v[0]) << 32) | static_cast<uint64_t>(v[1]);
}

// A DataLoader is used as given: every rank must run the same number of
// steps (one all-reduce each), else the job would hang.
void check_same_batches(DataParallel& dp, int64_t batches, const char* api) {
  std::vector<double> v{static_cast<double>(batches), static_cast<double>(batches) * static_cast<double>(batches)};
  dp.all_reduce_sum(v);
  NABLA_CHECK(v[0] * v[0] == v[1] * dp.world_size(), api, ": with FitOptions::distributed every rank must have ",
              "the same number of training batches; this rank's DataLoader has ", batches, " and the mean over the ",
              dp.world_size(), " ranks is ", v[0] / dp.world_size(),
              " (give each rank's DataLoader a data::DistributedSampler, or pass tensors or a Dataset)");
}

}  // namespace

LossFn make_loss(const std::string& name) {
  if (name == "cross_entropy") return [](const Tensor& o, const Tensor& t) { return cross_entropy(o, t); };
  if (name == "mse") return [](const Tensor& o, const Tensor& t) { return mse_loss(o, t); };
  if (name == "l1") return [](const Tensor& o, const Tensor& t) { return l1_loss(o, t); };
  if (name == "nll") return [](const Tensor& o, const Tensor& t) { return nll_loss(o, t); };
  if (name == "bce") return [](const Tensor& o, const Tensor& t) { return binary_cross_entropy(o, t); };
  if (name == "bce_with_logits")
    return [](const Tensor& o, const Tensor& t) { return binary_cross_entropy_with_logits(o, t); };
  fail("make_loss: unknown loss '", name, "', expected one of: cross_entropy, mse, l1, nll, bce, bce_with_logits ",
       "(or a function (output, target) -> loss)");
}

Data::Data(Tensor x, Tensor y) : x_(std::move(x)), y_(std::move(y)) {
  NABLA_CHECK(x_.defined(), "train::Data: x is an undefined tensor");
  NABLA_CHECK(x_.dim() >= 1, "train::Data: x must have a sample dimension (dim 0), got a scalar");
  NABLA_CHECK(!y_.defined() || (y_.dim() >= 1 && y_.size(0) == x_.size(0)), "train::Data: x has ", x_.size(0),
              " samples (dim 0) but y has shape ", y_.defined() ? y_.sizes() : IntList{}, "; expected ", x_.size(0),
              " along dim 0");
  dataset_ = std::make_shared<data::TensorDataset>(x_, y_);
}

Data::Data(data::DatasetPtr dataset) : dataset_(std::move(dataset)) {
  NABLA_CHECK(dataset_ != nullptr, "train::Data: the dataset is null");
}

Data::Data(data::DataLoader& loader) : loader_(&loader) {}

int64_t Data::size() const { return loader_ ? -1 : dataset_->size(); }

std::pair<Data, Data> Data::split_at(int64_t n, const char* api) const {
  NABLA_CHECK(!loader_, api, ": validation_split needs tensors or a Dataset, not a DataLoader (its batches ",
              "cannot be split); pass validation_data instead");
  const int64_t total = size();
  if (x_.defined()) {
    auto part = [&](const Tensor& t, int64_t start, int64_t len) { return t.defined() ? t.narrow(0, start, len) : t; };
    return {Data(part(x_, 0, n), part(y_, 0, n)), Data(part(x_, n, total - n), part(y_, n, total - n))};
  }
  std::vector<int64_t> head(static_cast<std::size_t>(n)), tail(static_cast<std::size_t>(total - n));
  std::iota(head.begin(), head.end(), int64_t{0});
  std::iota(tail.begin(), tail.end(), n);
  return {Data(std::make_shared<data::Subset>(dataset_, std::move(head))),
          Data(std::make_shared<data::Subset>(dataset_, std::move(tail)))};
}

const std::vector<double>& History::operator[](const std::string& key) const {
  auto it = history.find(key);
  if (it != history.end()) return it->second;
  std::string keys;
  for (const auto& [k, v] : history) keys += (keys.empty() ? "" : ", ") + k;
  fail("History: no values for '", key, "'; it has: ", keys.empty() ? "nothing (no epoch ran)" : keys);
}

Trainer::Trainer(nn::ModulePtr model, CompileOptions options) : model_(std::move(model)), options_(std::move(options)) {
  NABLA_CHECK(model_ != nullptr, "train::Trainer: the model is null");
  NABLA_CHECK(options_.optimizer != nullptr, "train::Trainer: CompileOptions::optimizer is required (e.g. ",
              "std::make_shared<optim::Adam>(model->parameters()))");
  NABLA_CHECK(static_cast<bool>(options_.loss), "train::Trainer: CompileOptions::loss is empty");
  for (const MetricSpec& m : options_.metrics) {
    NABLA_CHECK(m.metric != nullptr, "train::Trainer: a metric is null");
    NABLA_CHECK(m.metric->name() != "loss", "train::Trainer: a metric may not be called 'loss' (the loss's key)");
    for (const MetricPtr& seen : metrics_)
      NABLA_CHECK(seen->name() != m.metric->name(), "train::Trainer: two metrics are called '", seen->name(), "'");
    metrics_.push_back(m.metric);
  }
  // Moved in place (Module::to keeps the tensors the optimizer holds).
  model_->to(options_.device);
}

History Trainer::fit(const Data& train_data, FitOptions o) {
  const char* api = "Trainer::fit";
  NABLA_CHECK(o.epochs >= 0, api, ": epochs must be >= 0, got ", o.epochs);
  NABLA_CHECK(o.initial_epoch >= 0, api, ": initial_epoch must be >= 0, got ", o.initial_epoch);
  NABLA_CHECK(o.verbose >= 0 && o.verbose <= 2, api, ": verbose must be 0, 1 or 2, got ", o.verbose);
  NABLA_CHECK(o.validation_split >= 0 && o.validation_split < 1, api, ": validation_split must be in [0, 1), got ",
              o.validation_split);
  NABLA_CHECK(o.validation_split == 0 || !o.validation_data, api,
              ": give validation_data or validation_split, not both");
  DataParallel* dp = o.distributed.get();
  if (dp) {
    NABLA_CHECK(dp->world_size() >= 1 && dp->rank() >= 0 && dp->rank() < dp->world_size(), api,
                ": FitOptions::distributed says rank ", dp->rank(), " of ", dp->world_size(),
                ", expected a rank in [0, world_size)");
  }
  const bool chief = dp == nullptr || dp->rank() == 0;  // the rank that prints and writes

  Data train = train_data;
  std::optional<Data> validation = o.validation_data;
  if (o.validation_split > 0) {
    // Keras: the last fraction of the samples as given, before any shuffling.
    const int64_t n = train.is_loader() ? -1 : train.size();
    const auto at = n < 0 ? 0 : static_cast<int64_t>(std::floor(static_cast<double>(n) * (1 - o.validation_split)));
    NABLA_CHECK(n < 0 || (at > 0 && at < n), api, ": validation_split ", o.validation_split, " of ", n,
                " samples leaves ", at, " for training and ", n - at, " for validation; both must be > 0");
    auto [head, tail] = train.split_at(at, api);
    train = head;
    validation = tail;
  }

  uint64_t seed = o.seed;
  // A DataLoader shuffles with its own seed: drawing one for it would only
  // move the global generator (and so change dropout masks).
  if (seed == 0 && !train.is_loader()) {
    Generator& g = default_generator();
    auto words = Philox::at(g.seed(), g.reserve(1), 0);
    seed = (uint64_t(words[0]) << 32) | words[1];
  }
  if (dp && !train.is_loader()) seed = rank_zero_seed(*dp, seed);
  // Distributed: this rank's shard of the tensors or Dataset, reshuffled each epoch from (seed, epoch).
  auto train_batches = [&](uint64_t s) {
    data::SamplerPtr shard;
    if (dp && !train.is_loader())
      shard = std::make_shared<data::DistributedSampler>(train.size(), dp->world_size(), dp->rank(), o.shuffle, s);
    return batches(train, o.batch_size, o.shuffle, s, o.collate, o.num_workers, api, shard);
  };
  Batches b = train_batches(seed);
  if (b.owned) b.owned->set_epoch(static_cast<uint64_t>(o.initial_epoch));
  NABLA_CHECK(b.loader->size() > 0, api, ": the training data has no samples");
  if (dp && train.is_loader()) check_same_batches(*dp, b.loader->size(), api);
  if (dp && validation && !validation->is_loader())  // each rank evaluates its part; the values are reduced
    validation = Data(evaluation_shard(validation->dataset(), dp->rank(), dp->world_size()));
  EvaluateOptions eval_options{.batch_size = o.validation_batch_size > 0 ? o.validation_batch_size : o.batch_size,
                               .collate = o.collate,
                               .num_workers = o.num_workers};
  if (validation && validation->is_loader()) eval_options = {};

  std::vector<CallbackPtr> callbacks;
  bool has_bar = false;
  for (const CallbackSpec& c : o.callbacks) {
    NABLA_CHECK(c.callback != nullptr, api, ": a callback is null");
    has_bar = has_bar || dynamic_cast<ProgressBarCallback*>(c.callback.get()) != nullptr;
  }
  if (o.verbose > 0 && !has_bar) callbacks.push_back(std::make_shared<ProgressBarCallback>(o.verbose));
  for (const CallbackSpec& c : o.callbacks) callbacks.push_back(c.callback);
  std::stable_partition(callbacks.begin(), callbacks.end(), [](const CallbackPtr& c) { return !c->runs_last(); });
  for (const CallbackPtr& c : callbacks) c->set_trainer(this);
  // The callbacks whose hooks run here: output-only ones on the chief only.
  // All are kept in `callbacks` (a backup counts and saves them all).
  std::vector<CallbackPtr> active;
  for (const CallbackPtr& c : callbacks)
    if (chief || !c->rank_zero_only()) active.push_back(c);

  epochs_ = o.epochs;
  steps_ = b.loader->size();
  stop_training = false;
  // Forward, loss, backward and the optimizer step: compiled or eager (train_step.h).
  TrainStep step(*model_, *options_.optimizer, options_.loss, o.jit, chief ? o.verbose : 0, api);
  if (dp) {
    dp->setup(model_);  // the replicas start equal (DDP: broadcast from rank 0)
    step.set_gradient_sync(dp);
  }

  Mean loss_mean("loss");
  History history;
  Logs logs;
  running_ = {&history, &loss_mean, &callbacks, b.loader, dp};
  struct EndRunning {
    Running& r;
    ~EndRunning() { r = {}; }
  } end_running{running_};
  for (const CallbackPtr& c : active) c->on_train_begin({});

  // --- Resuming an interrupted run (BackupAndRestore): see ResumePoint.
  std::optional<ResumePoint> resume;
  for (const CallbackPtr& c : active)
    if (std::optional<ResumePoint> r = c->resume_point()) {
      NABLA_CHECK(!resume, api, ": two callbacks want to resume the run; give one BackupAndRestore");
      resume = std::move(r);
    }
  if (resume) {
    if (b.owned && resume->shuffle_seed != seed) {  // the same data order as the interrupted run
      b = train_batches(resume->shuffle_seed);
      running_.loader = b.loader;
    }
    b.loader->set_epoch(resume->loader_epoch);
    history = resume->history;
    stop_training = resume->stop_training;
  }
  auto finish_resume = [&] {  // restores what the backup saved, where it was saved
    resume->restore();
    if (resume->batch > 0) {
      NABLA_CHECK(resume->metrics.size() == metrics_.size(), api, ": the backup holds ", resume->metrics.size(),
                  " metrics' running values, expected ", metrics_.size());
      loss_mean.load_state_dict(resume->loss);
      for (std::size_t i = 0; i < metrics_.size(); ++i) metrics_[i]->load_state_dict(resume->metrics[i]);
      b.loader->set_start_batch(resume->batch);
    }
    resume.reset();
  };
  // ---

  for (int epoch = resume ? resume->epoch : o.initial_epoch; epoch < o.epochs && !stop_training; ++epoch) {
    loss_mean.reset();
    for (const MetricPtr& m : metrics_) m->reset();
    model_->train();
    if (resume && resume->batch == 0) finish_resume();
    for (const CallbackPtr& c : active) c->on_epoch_begin(epoch, {});
    int64_t batch_index = 0;
    if (resume) {
      batch_index = resume->batch;
      finish_resume();
    }
    for_each_batch(*b.loader, options_.device, [&](const data::Example& batch) {
      NABLA_CHECK(batch.target.defined(), api, ": the training data has no targets (y)");
      batch_input_ = batch.data;
      for (const CallbackPtr& c : active) c->on_train_batch_begin(batch_index, {});
      StepResult r = step(batch.data, batch.target);
      {
        NoGradGuard no_grad;
        loss_mean.add(r.loss.item<double>(), static_cast<double>(batch.data.size(0)));
        for (const MetricPtr& m : metrics_) m->update(r.output, batch.target);
      }
      last_batch_size_ = batch.data.size(0);
      logs = metric_logs(loss_mean, metrics_);
      if (dp) logs = reduced_logs(*dp, logs, loss_mean.total_weight());
      for (const CallbackPtr& c : active) c->on_train_batch_end(batch_index, logs);
      if (dp) stop_training = any_rank(*dp, stop_training);
      ++batch_index;
      return !stop_training;
    });
    logs = metric_logs(loss_mean, metrics_);
    if (dp) logs = reduced_logs(*dp, logs, loss_mean.total_weight());
    if (validation) {
      double samples = 0;
      Logs v = evaluate_impl(*validation, eval_options, api, &samples);
      if (dp) v = reduced_logs(*dp, v, samples);
      for (const auto& [k, value] : v) logs["val_" + k] = value;
    }
    // The first group's lr at the epoch's end, before the epoch-end callbacks change it.
    logs["lr"] = options_.optimizer->param_groups().at(0).lr();
    for (const CallbackPtr& c : active) c->on_epoch_end(epoch, logs);
    if (dp) stop_training = any_rank(*dp, stop_training);
    history.epoch.push_back(epoch);
    for (const auto& [k, value] : logs) history.history[k].push_back(value);
  }
  if (resume) finish_resume();  // the interrupted run had no epoch left
  for (const CallbackPtr& c : active) c->on_train_end(logs);
  for (const CallbackPtr& c : callbacks) c->set_trainer(nullptr);
  epochs_ = 0;
  steps_ = 0;
  return history;
}

const History& Trainer::history() const {
  NABLA_CHECK(running_.history, "Trainer::history: only while fit() runs (fit() returns the History)");
  return *running_.history;
}

const Mean& Trainer::epoch_loss() const {
  NABLA_CHECK(running_.loss, "Trainer::epoch_loss: only while fit() runs");
  return *running_.loss;
}

const std::vector<CallbackPtr>& Trainer::callbacks() const {
  NABLA_CHECK(running_.callbacks, "Trainer::callbacks: only while fit() runs");
  return *running_.callbacks;
}

const data::DataLoader& Trainer::train_loader() const {
  NABLA_CHECK(running_.loader, "Trainer::train_loader: only while fit() runs");
  return *running_.loader;
}

Logs Trainer::evaluate_impl(const Data& data, const EvaluateOptions& o, const char* api, double* samples) {
  Batches b = batches(data, o.batch_size, false, 0, o.collate, o.num_workers, api);
  NoGradGuard no_grad;
  const bool was_training = model_->is_training();
  model_->eval();
  Mean loss_mean("loss");
  std::vector<MetricPtr> metrics = metrics_;
  for (const MetricPtr& m : metrics) m->reset();
  for_each_batch(*b.loader, options_.device, [&](const data::Example& batch) {
    NABLA_CHECK(batch.target.defined(), api, ": the evaluation data has no targets (y)");
    Tensor output = (*model_)(batch.data);
    loss_mean.add(options_.loss(output, batch.target).item<double>(), static_cast<double>(batch.data.size(0)));
    for (const MetricPtr& m : metrics) m->update(output, batch.target);
    return true;
  });
  model_->train(was_training);
  if (samples != nullptr) *samples = loss_mean.total_weight();
  Logs logs = metric_logs(loss_mean, metrics);
  // The training metrics' state is reused: fit() evaluates after the epoch's values were read.
  return logs;
}

Logs Trainer::evaluate(const Data& data, EvaluateOptions options) {
  return evaluate_impl(data, options, "Trainer::evaluate");
}

Tensor Trainer::predict(const Data& data, EvaluateOptions o) {
  Batches b = batches(data, o.batch_size, false, 0, o.collate, o.num_workers, "Trainer::predict");
  NoGradGuard no_grad;
  const bool was_training = model_->is_training();
  model_->eval();
  std::vector<Tensor> outputs;
  for_each_batch(*b.loader, options_.device, [&](const data::Example& batch) {
    outputs.push_back((*model_)(batch.data));
    return true;
  });
  model_->train(was_training);
  NABLA_CHECK(!outputs.empty(), "Trainer::predict: the data has no samples");
  return outputs.size() == 1 ? outputs[0] : cat(outputs, 0);
}

}  // namespace nabla::train

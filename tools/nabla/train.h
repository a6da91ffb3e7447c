// `nabla train`: a thin client of nabla/train (train::Trainer::fit). Per
// epoch: shuffled batches from a DataLoader with worker threads, cross-entropy,
// Adam (or another optimizer) with a per-batch cosine learning-rate schedule
// (train::LearningRateScheduler), a progress display, then evaluation on the
// test set (fit()'s validation data), then the training state (model,
// optimizer, schedule, random generator, epoch; io/training_state.h) goes into
// <out>/checkpoint.safetensors, atomically (train_callbacks.h), and the epoch's
// values into TensorBoard logs (--logdir). --resume continues from there.
#pragma once
#include <ostream>
#include <string>

#include "cli.h"
#include "nabla/nn/module.h"
#include "nabla/optim/optimizer.h"
#include "nabla/train/data_parallel.h"

namespace nabla::tool {

struct TrainResult {
  double test_accuracy = 0, test_loss = 0;
  double train_seconds = 0;  // training and evaluation, without loading the data
  std::string checkpoint;    // the file written
};

// SGD's momentum in `nabla train` unless a config file sets it.
inline constexpr double kSgdMomentum = 0.9;

// The optimizer `name` (cli.h's list) over `params` with learning rate lr and
// the other hyper-parameters in `options` (the optimizer's own names).
std::unique_ptr<optim::Optimizer> make_optimizer(const std::string& name, std::vector<Tensor> params, double lr,
                                                 const std::map<std::string, double>& options = {});

// Where the TensorBoard logs go: config.logdir, or <out>/logs.
std::string logdir(const TrainConfig& config);

// Runs `config`, printing to `out`; `terminal` says whether `out` is one
// (config.progress "auto" then draws a bar). Errors raise nabla::Error.
// With `parallel` (--distributed: main.cpp makes a distributed::FitDataParallel
// when the build has MPI) the run is data-parallel over its ranks: each
// trains on its shard of the training data and evaluates its part of the
// test data; rank 0 alone prints to `out` and writes the checkpoint and the
// TensorBoard logs; --resume reads the checkpoint on every rank.
TrainResult run_train(const TrainConfig& config, std::ostream& out, bool terminal,
                      train::DataParallelPtr parallel = nullptr);

}  // namespace nabla::tool

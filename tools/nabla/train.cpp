// See train.h.
#include "train.h"

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "config_callbacks.h"
#include "models.h"
#include "nabla/data/distributed_sampler.h"
#include "nabla/io/training_state.h"
#include "nabla/nabla.h"
#include "nabla/nn/config.h"
#include "nabla/train/tensorboard_callback.h"
#include "nabla/train/train.h"
#include "resume.h"
#include "train_callbacks.h"
#include "train_config.h"
#include "train_data.h"

namespace nabla::tool {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The layers' shapes against the data's, before anything trains: a sample's
// output must be [classes] with every class index in range.
void check_model_fits_data(const TrainConfig& c, const nn::Module& model, const TrainData& ds) {
  const std::string where = c.config_file.empty() ? "nabla train --model " + c.model : c.config_file;
  std::vector<int64_t> out = nn::check_shapes(model, ds.sample_shape, where, "model");
  NABLA_CHECK(out.size() == 1, where, ": model: one sample's output has shape ", IntList(out),
              ", expected [classes] (cross_entropy over class indices)");
  NABLA_CHECK(ds.max_label < out[0], where, ": model: its output has ", out[0],
              " classes but the data's class indices ", "go up to ", ds.max_label);
}

}  // namespace

std::string logdir(const TrainConfig& c) {
  return c.logdir.empty() ? (std::filesystem::path(c.out) / "logs").string() : c.logdir;
}

std::unique_ptr<optim::Optimizer> make_optimizer(const std::string& name, std::vector<Tensor> params, double lr,
                                                 const std::map<std::string, double>& options) {
  optim::Options o(options.begin(), options.end());
  o["lr"] = lr;
  if (name == "sgd") {
    o.emplace("momentum", kSgdMomentum);
    return std::make_unique<optim::SGD>(std::move(params), o);
  }
  if (name == "adam") return std::make_unique<optim::Adam>(std::move(params), o);
  if (name == "adamw") return std::make_unique<optim::AdamW>(std::move(params), o);
  if (name == "rmsprop") return std::make_unique<optim::RMSprop>(std::move(params), o);
  if (name == "adagrad") return std::make_unique<optim::Adagrad>(std::move(params), o);
  fail("nabla train: unknown optimizer '", name, "', expected one of: sgd, adam, adamw, rmsprop, adagrad");
}

TrainResult run_train(const TrainConfig& c, std::ostream& all_out, bool terminal, train::DataParallelPtr parallel) {
  const int rank = parallel ? parallel->rank() : 0, ranks = parallel ? parallel->world_size() : 1;
  std::ostream quiet(nullptr);  // the other ranks print nothing (a stream without a buffer drops all)
  std::ostream& out = rank == 0 ? all_out : quiet;
  if (c.threads > 0) set_num_threads(c.threads);
  manual_seed(c.seed);
  const Device device(c.device);
  backend_for(device, "nabla train --device");  // present, or an error listing the devices that are

  auto load_start = Clock::now();
  TrainData ds = load_train_data(c);
  char line[256];
  std::snprintf(line, sizeof line, "data: %lld training, %lld test %s from ", static_cast<long long>(ds.train->size()),
                static_cast<long long>(ds.test->size()), c.data_spec.format == "idx" ? "images" : "samples");
  out << line << ds.source;  // a path of any length
  std::snprintf(line, sizeof line, " (%.1f s)\n", seconds_since(load_start));
  out << line;

  // The output directory first: an unwritable --out fails now, not after training.
  std::error_code ec;
  std::filesystem::create_directories(c.out, ec);
  NABLA_CHECK(!ec, "nabla train: cannot create the output directory '", c.out, "': ", ec.message());
  TrainResult result;
  result.checkpoint = (std::filesystem::path(c.out) / "checkpoint.safetensors").string();

  nn::ModulePtr model = build_model(c);
  check_model_fits_data(c, *model, ds);
  model->to(device);  // before the optimizer: its state is made where the parameters are
  if (c.memory_format == "channels_last") {
    // PyTorch's model.to(memory_format=torch.channels_last): with channels-last
    // weights every convolution gives channels-last activations.
    NABLA_CHECK(device.is_cpu(), "nabla train: --memory-format channels_last runs on the CPU only, got --device ",
                c.device);
    nn::to(*model, MemoryFormat::ChannelsLast);
  }
  std::shared_ptr<optim::Optimizer> optimizer =
      make_optimizer(c.optimizer, model->parameters(), c.lr, c.optimizer_options);
  // --distributed: each rank's shard of the training set (reshuffled each
  // epoch from --seed) and its part of the test set (fit() reduces the values).
  data::SamplerPtr shard;
  if (parallel) shard = std::make_shared<data::DistributedSampler>(ds.train->size(), ranks, rank, true, c.seed);
  data::DataLoader train_loader(ds.train, {.batch_size = c.batch_size,
                                           .shuffle = true,
                                           .seed = c.seed,
                                           .num_workers = c.workers,
                                           .collate = ds.collate,
                                           .sampler = shard,
                                           .pin_memory = !device.is_cpu()});
  data::DataLoader test_loader(
      train::evaluation_shard(ds.test, rank, ranks),
      {.batch_size = 500, .num_workers = c.workers, .collate = ds.collate, .pin_memory = !device.is_cpu()});
  std::shared_ptr<optim::LRScheduler> schedule;
  if (c.schedule == "cosine")
    schedule = std::make_shared<optim::CosineAnnealingLR>(*optimizer, c.epochs * train_loader.size());

  // Saved with every checkpoint; --resume refuses a checkpoint of other options.
  io::Metadata info = run_options(c, ds.train->size(), ds.test->size());
  int epochs_done = 0;
  int64_t step = 0;  // optimizer steps taken, resumed ones included
  double best_accuracy = 0;
  if (c.resume && std::filesystem::exists(result.checkpoint)) {
    io::TrainingState saved = io::read_training_state(result.checkpoint);
    check_same_options(result.checkpoint, saved.info, info);
    NABLA_CHECK(saved.epoch <= c.epochs, "nabla train --resume: '", result.checkpoint, "' says ", saved.epoch,
                " epochs are done, more than --epochs ", c.epochs);
    // The model, optimizer and schedule were built (and the generator
    // advanced) exactly as in the first run; now they take its state.
    saved = io::restore_training_state(result.checkpoint, *model, *optimizer, schedule.get());
    epochs_done = static_cast<int>(saved.epoch);
    step = saved.step;
    result.test_accuracy = saved_number(result.checkpoint, saved.info, "test_accuracy");
    result.test_loss = saved_number(result.checkpoint, saved.info, "test_loss");
    best_accuracy = saved_number(result.checkpoint, saved.info, "best_test_accuracy");
    // A shuffling loader's order is a function of (seed, epoch).
    train_loader.set_epoch(static_cast<uint64_t>(saved.epoch));
    test_loader.set_epoch(static_cast<uint64_t>(saved.epoch));
    out << "resume: " << result.checkpoint << " after epoch " << saved.epoch << "/" << c.epochs << " (step " << step
        << ")" << (saved.epoch == c.epochs ? "; the run is complete, nothing to train\n" : "\n");
    // Not refused: the same updates, but sums may be split differently.
    if (auto t = saved.info.find("threads"); t != saved.info.end() && t->second != std::to_string(get_num_threads()))
      out << "note: the run was started with " << t->second << " compute threads, this one has " << get_num_threads()
          << ": the results may differ from an uninterrupted run in the last bits\n";
    // Not refused either (a job may resume on another number of processes), but the batches change.
    const auto saved_ranks = saved.info.find("ranks");
    const std::string was = saved_ranks == saved.info.end() ? "1" : saved_ranks->second;
    if (was != std::to_string(ranks))
      out << "note: the run was started on " << was << " process(es), this one has " << ranks
          << ": each epoch's batches (their number and contents) differ from an uninterrupted run\n";
  } else if (c.resume) {
    out << "resume: no checkpoint at " << result.checkpoint << " yet; starting from epoch 1\n";
  }

  std::snprintf(line, sizeof line,
                "model: %s, %lld parameters; optimizer: %s lr %g, schedule %s; batch %lld; %d threads\n",
                c.model.c_str(), static_cast<long long>(model->num_parameters()), optimizer->name().c_str(), c.lr,
                c.schedule.c_str(), static_cast<long long>(c.batch_size), get_num_threads());
  out << line;
  if (!device.is_cpu()) out << "device: " << device << "\n";
  if (parallel)
    out << "distributed: " << ranks << " process(es), batch " << c.batch_size << " each (" << c.batch_size * ranks
        << " per step), " << train_loader.size() << " steps per epoch\n";
  out << std::flush;

  // The run is fit() with these callbacks, in this order: after each batch the
  // schedule steps, then the kill hook, then the bar; after each epoch the bar
  // ends, then the test line, the checkpoint and the TensorBoard logs.
  auto test_line = std::make_shared<TestLine>(out);
  std::vector<train::CallbackSpec> callbacks;
  if (schedule)
    callbacks.emplace_back(train::LearningRateScheduler(schedule, train::LearningRateScheduler::Every::Batch));
  if (const int64_t kill_at = kill_at_step_from_environment(); kill_at > 0)
    callbacks.emplace_back(KillAtStep(all_out, kill_at, step));  // any rank says so
  if (c.progress != "none")
    callbacks.emplace_back(EpochProgress(out, c.progress == "bar" || (c.progress == "auto" && terminal)
                                                  ? train::ProgressBar::Mode::Bar
                                                  : train::ProgressBar::Mode::Lines));
  callbacks.emplace_back(test_line);
  info["model"] = c.model;
  info["ranks"] = std::to_string(ranks);
  info["dataset"] = c.data_spec.format == "idx" ? "fashion-mnist" : c.data_spec.format;
  callbacks.emplace_back(TrainingStateCheckpoint(result.checkpoint, info, schedule, step, best_accuracy));
  callbacks.emplace_back(train::TensorBoard(logdir(c)));
  // The config file's callbacks (docs/config.md), after nabla train's own:
  // they see the epoch's logs once the checkpoint is written.
  if (!c.callbacks_config.empty())
    for (train::CallbackSpec& cb : build_config_callbacks(nn::Json::parse(c.callbacks_config),
                                                          c.config_file.empty() ? "the training config" : c.config_file,
                                                          c.metrics, c.schedule))
      callbacks.push_back(std::move(cb));

  std::vector<train::MetricSpec> metrics = {"accuracy"};
  for (const std::string& m : c.metrics) metrics.emplace_back(m);
  train::Trainer trainer(model, {.optimizer = optimizer, .metrics = std::move(metrics), .device = device});
  auto start = Clock::now();
  if (epochs_done < c.epochs) {
    trainer.fit(train_loader, {.epochs = c.epochs,
                               .validation_data = train::Data(test_loader),
                               .callbacks = std::move(callbacks),
                               .initial_epoch = epochs_done,
                               .verbose = 0,
                               .jit = train::Jit::Auto,
                               .distributed = parallel});
    result.test_loss = test_line->test_loss;
    result.test_accuracy = test_line->test_accuracy;
  }
  result.train_seconds = seconds_since(start);

  std::snprintf(line, sizeof line, "final test accuracy: %.2f%% after %d epochs in %.1f s\n",
                100.0 * result.test_accuracy, c.epochs, result.train_seconds);
  out << line << "checkpoint: " << result.checkpoint << " (model + " << optimizer->name() << " state)\n" << std::flush;
  return result;
}

}  // namespace nabla::tool

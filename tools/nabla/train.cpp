// See train.h.
#include "train.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>

#include "nabla/data/fashion_mnist.h"
#include "models.h"
#include "nabla/io/training_state.h"
#include "nabla/nabla.h"
#include "progress.h"
#include "resume.h"

namespace nabla::tool {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// A double as text that reads back to the same bits.
std::string exact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

ProgressBar::Mode progress_mode(const std::string& name, bool terminal) {
  if (name == "bar") return ProgressBar::Mode::Bar;
  if (name == "lines") return ProgressBar::Mode::Lines;
  if (name == "none") return ProgressBar::Mode::None;
  return terminal ? ProgressBar::Mode::Bar : ProgressBar::Mode::Lines;
}

int64_t count_correct(const Tensor& logits, const Tensor& target) {
  NoGradGuard no_grad;
  return eq(logits.argmax(1), target).sum().item<int64_t>();
}

struct Evaluation {
  double loss = 0, accuracy = 0;
};

// Calls fn with each batch of an epoch of `loader`, on `device` (copied
// there by a DevicePrefetcher, one batch ahead, when it is not the CPU).
template <class Fn>
void for_each_batch(data::DataLoader& loader, Device device, Fn&& fn) {
  if (device.is_cpu()) {
    for (const data::Example& batch : loader) fn(batch);
  } else {
    for (const data::Example& batch : data::DevicePrefetcher(loader, device)) fn(batch);
  }
}

Evaluation evaluate(nn::Module& model, data::DataLoader& loader, Device device) {
  NoGradGuard no_grad;
  model.eval();
  double loss_sum = 0;
  int64_t correct = 0, seen = 0;
  for_each_batch(loader, device, [&](const data::Example& batch) {
    Tensor logits = model(batch.data);
    int64_t n = batch.target.size(0);
    loss_sum += cross_entropy(logits, batch.target, Tensor(), kDefaultIgnoreIndex, "sum").item<float>();
    correct += count_correct(logits, batch.target);
    seen += n;
  });
  model.train();
  if (seen == 0) return {};
  return {loss_sum / static_cast<double>(seen), static_cast<double>(correct) / static_cast<double>(seen)};
}

}  // namespace

std::unique_ptr<optim::Optimizer> make_optimizer(const std::string& name, std::vector<Tensor> params, double lr) {
  if (name == "sgd")
    return std::make_unique<optim::SGD>(std::move(params), optim::Options{{"lr", lr}, {"momentum", 0.9}});
  if (name == "adam") return std::make_unique<optim::Adam>(std::move(params), optim::Options{{"lr", lr}});
  if (name == "adamw") return std::make_unique<optim::AdamW>(std::move(params), optim::Options{{"lr", lr}});
  if (name == "rmsprop") return std::make_unique<optim::RMSprop>(std::move(params), optim::Options{{"lr", lr}});
  if (name == "adagrad") return std::make_unique<optim::Adagrad>(std::move(params), optim::Options{{"lr", lr}});
  fail("nabla train: unknown optimizer '", name, "', expected one of: sgd, adam, adamw, rmsprop, adagrad");
}

TrainResult run_train(const TrainConfig& c, std::ostream& out, bool terminal) {
  if (c.threads > 0) set_num_threads(c.threads);
  manual_seed(c.seed);
  const Device device(c.device);
  backend_for(device, "nabla train --device");  // present, or an error listing the devices that are

  auto load_start = Clock::now();
  data::FashionMnist ds = data::load_fashion_mnist(c.data, c.limit);
  char line[256];
  std::snprintf(line, sizeof line, "data: %lld training, %lld test images from ",
                static_cast<long long>(ds.train->size()), static_cast<long long>(ds.test->size()));
  out << line << c.data;  // a path of any length
  std::snprintf(line, sizeof line, " (%.1f s)\n", seconds_since(load_start));
  out << line;

  // The output directory first: an unwritable --out fails now, not after training.
  std::error_code ec;
  std::filesystem::create_directories(c.out, ec);
  NABLA_CHECK(!ec, "nabla train: cannot create the output directory '", c.out, "': ", ec.message());
  TrainResult result;
  result.checkpoint = (std::filesystem::path(c.out) / "checkpoint.safetensors").string();

  nn::ModulePtr model = make_model(c.model);
  model->to(device);  // before the optimizer: its state is made where the parameters are
  auto optimizer = make_optimizer(c.optimizer, model->parameters(), c.lr);
  data::DataLoader train_loader(ds.train, {.batch_size = c.batch_size,
                                           .shuffle = true,
                                           .seed = c.seed,
                                           .num_workers = c.workers,
                                           .collate = data::collate_normalized,
                                           .pin_memory = !device.is_cpu()});
  data::DataLoader test_loader(ds.test, {.batch_size = 500,
                                         .num_workers = c.workers,
                                         .collate = data::collate_normalized,
                                         .pin_memory = !device.is_cpu()});
  std::unique_ptr<optim::LRScheduler> schedule;
  if (c.schedule == "cosine")
    schedule = std::make_unique<optim::CosineAnnealingLR>(*optimizer, c.epochs * train_loader.size());

  // Saved with every checkpoint; --resume refuses a checkpoint of other options.
  const io::Metadata options = run_options(c, ds.train->size(), ds.test->size());
  int first_epoch = 1;
  int64_t step = 0;  // optimizer steps taken, resumed ones included
  double best_accuracy = 0;
  if (c.resume && std::filesystem::exists(result.checkpoint)) {
    io::TrainingState saved = io::read_training_state(result.checkpoint);
    check_same_options(result.checkpoint, saved.info, options);
    NABLA_CHECK(saved.epoch <= c.epochs, "nabla train --resume: '", result.checkpoint, "' says ", saved.epoch,
                " epochs are done, more than --epochs ", c.epochs);
    // The model, optimizer and schedule were built (and the generator
    // advanced) exactly as in the first run; now they take its state.
    saved = io::restore_training_state(result.checkpoint, *model, *optimizer, schedule.get());
    first_epoch = static_cast<int>(saved.epoch) + 1;
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
  } else if (c.resume) {
    out << "resume: no checkpoint at " << result.checkpoint << " yet; starting from epoch 1\n";
  }
  const int64_t kill_at_step = kill_at_step_from_environment();

  std::snprintf(line, sizeof line,
                "model: %s, %lld parameters; optimizer: %s lr %g, schedule %s; batch %lld; %d threads\n",
                c.model.c_str(), static_cast<long long>(model->num_parameters()), optimizer->name().c_str(), c.lr,
                c.schedule.c_str(), static_cast<long long>(c.batch_size), get_num_threads());
  out << line;
  if (!device.is_cpu()) out << "device: " << device << "\n";
  out << std::flush;

  auto start = Clock::now();
  const ProgressBar::Mode mode = progress_mode(c.progress, terminal);
  model->train();
  for (int epoch = first_epoch; epoch <= c.epochs; ++epoch) {
    ProgressBar bar(out, mode, "epoch " + std::to_string(epoch) + "/" + std::to_string(c.epochs), train_loader.size());
    double loss_sum = 0;
    int64_t correct = 0, seen = 0, batches = 0;
    for_each_batch(train_loader, device, [&](const data::Example& batch) {
      Tensor logits = (*model)(batch.data);
      Tensor loss = cross_entropy(logits, batch.target);
      optimizer->zero_grad();
      loss.backward();
      optimizer->step();
      if (schedule) schedule->step();
      if (++step == kill_at_step) {
        out << "NABLA_TRAIN_KILL_AT_STEP: killing the process at step " << step << "\n" << std::flush;
        std::raise(SIGKILL);
      }
      int64_t n = batch.target.size(0);
      loss_sum += static_cast<double>(loss.item<float>()) * static_cast<double>(n);
      correct += count_correct(logits, batch.target);
      seen += n;
      bar.update(++batches, seen, loss_sum, correct);
    });
    bar.finish();
    Evaluation test = evaluate(*model, test_loader, device);
    result.test_loss = test.loss;
    result.test_accuracy = test.accuracy;
    std::snprintf(line, sizeof line, "epoch %d/%d: test loss %.4f, test accuracy %.2f%% (%.1f s elapsed)\n", epoch,
                  c.epochs, test.loss, 100.0 * test.accuracy, seconds_since(start));
    out << line << std::flush;

    // After every epoch, atomically: a kill loses at most the epoch under way.
    best_accuracy = std::max(best_accuracy, test.accuracy);
    io::TrainingState state;  // rng: save_training_state takes the live generator's
    state.epoch = epoch;
    state.step = step;
    state.info = options;
    state.info["model"] = c.model;
    state.info["dataset"] = "fashion-mnist";
    state.info["epochs"] = std::to_string(epoch);
    state.info["test_accuracy"] = exact(test.accuracy);
    state.info["test_loss"] = exact(test.loss);
    state.info["best_test_accuracy"] = exact(best_accuracy);
    state.info["threads"] = std::to_string(get_num_threads());
    io::save_training_state(result.checkpoint, *model, *optimizer, schedule.get(), state);
  }
  result.train_seconds = seconds_since(start);

  std::snprintf(line, sizeof line, "final test accuracy: %.2f%% after %d epochs in %.1f s\n",
                100.0 * result.test_accuracy, c.epochs, result.train_seconds);
  out << line << "checkpoint: " << result.checkpoint << " (model + " << optimizer->name() << " state)\n" << std::flush;
  return result;
}

}  // namespace nabla::tool

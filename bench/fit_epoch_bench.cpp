// One epoch of train::Trainer::fit() against a hand-written loop (the one
// `nabla train` had before it ran on fit()) on the same model (zoo::fashion_cnn),
// data (the first N Fashion-MNIST training images), loader settings (batch
// 64, shuffled, 2 workers, data::collate_normalized) and optimizer (Adam
// 1e-3), in one process, taking turns so that all see the same machine load
// (issue 16, acceptance 1: fit's epoch time no worse than the hand-written
// loop's). Four variants per round:
//   loop           the hand-written eager loop, tracking loss and accuracy as `nabla train` does
//   loop compiled  the same loop with its step (forward, loss, backward, Adam) through nabla::compile
//   fit eager      fit() with Jit::Off, the accuracy metric, no validation, verbose 0
//   fit compiled   fit() with Jit::On (the default Auto compiles this model too)
// Each epoch starts from fresh weights, so the compiled variants pay their
// traces (one per batch shape: 64 and the last batch's) in every epoch.
//
//   fit_epoch_bench [N = 6000] [rounds = 3] [--data DIR]
//
// Prints each epoch's seconds, the ratios of the medians to the loop's, what
// the epoch's last, smaller batch costs compiled (a second trace) and eagerly
// (train::TrainStep keeps the trace for later epochs), and the eval-mode
// forward over the images eager and compiled (evaluate/predict stay eager).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "nabla/nabla.h"
#include "nabla/train/train_step.h"

namespace {

using namespace nabla;
using Clock = std::chrono::steady_clock;

// The loop of `nabla train`; `jit` runs its step through nabla::compile.
double hand_written_epoch(const data::DatasetPtr& train_set, bool jit) {
  manual_seed(1);
  nn::ModulePtr model = zoo::fashion_cnn();
  optim::Adam adam(model->parameters(), optim::Options{{"lr", 1e-3}});
  data::DataLoader loader(
      train_set, {.batch_size = 64, .shuffle = true, .seed = 1, .num_workers = 2, .collate = data::collate_normalized});
  auto step = [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    Tensor logits = (*model)(in[0]);
    Tensor loss = cross_entropy(logits, in[1]);
    adam.zero_grad();
    loss.backward();
    adam.step();
    return {loss, logits};
  };
  CompiledFunction compiled = compile(step);
  model->train();
  auto start = Clock::now();
  double loss_sum = 0;
  int64_t correct = 0, seen = 0;
  for (const data::Example& batch : loader) {
    std::vector<Tensor> r = jit ? compiled({batch.data, batch.target}) : step({batch.data, batch.target});
    int64_t n = batch.target.size(0);
    loss_sum += static_cast<double>(r[0].item<float>()) * static_cast<double>(n);
    {
      NoGradGuard no_grad;
      correct += eq(r[1].argmax(1), batch.target).sum().item<int64_t>();
    }
    seen += n;
  }
  double s = std::chrono::duration<double>(Clock::now() - start).count();
  if (seen == 0 || loss_sum < 0 || correct < 0) std::abort();  // keep the values live
  return s;
}

double fit_epoch(const data::DatasetPtr& train_set, train::Jit jit) {
  manual_seed(1);
  nn::ModulePtr model = zoo::fashion_cnn();
  train::Trainer trainer(model,
                         {.optimizer = std::make_shared<optim::Adam>(model->parameters(), optim::Options{{"lr", 1e-3}}),
                          .metrics = {"accuracy"}});
  train::FitOptions o{.epochs = 1, .batch_size = 64, .verbose = 0, .jit = jit, .num_workers = 2, .seed = 1};
  o.collate = data::collate_normalized;
  auto start = Clock::now();
  trainer.fit(train_set, o);
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The last batch of an epoch (n images): its first compiled step (trace,
// Session, first run), a later compiled step, and an eager step.
void last_batch_costs(int64_t n) {
  manual_seed(1);
  nn::ModulePtr model = zoo::fashion_cnn();
  optim::Adam adam(model->parameters(), optim::Options{{"lr", 1e-3}});
  train::TrainStep compiled(*model, adam, train::make_loss("cross_entropy"), train::Jit::On);
  train::TrainStep eager(*model, adam, train::make_loss("cross_entropy"), train::Jit::Off);
  Tensor x = randn({n, 1, 28, 28}), y = randint(0, 10, {n});
  auto time = [&](train::TrainStep& step) {
    auto start = Clock::now();
    (void)step(x, y).loss.item<float>();
    return std::chrono::duration<double>(Clock::now() - start).count() * 1e3;
  };
  double first = time(compiled), eager_ms = 1e30, later = 1e30;
  for (int i = 0; i < 5; ++i) {
    later = std::min(later, time(compiled));
    eager_ms = std::min(eager_ms, time(eager));
  }
  std::printf(
      "last batch of %lld: first compiled step (trace) %.1f ms, later compiled %.1f ms, eager %.1f ms: the "
      "trace pays for itself after %.1f epochs\n",
      static_cast<long long>(n), first, later, eager_ms,
      eager_ms > later ? (first - eager_ms) / (eager_ms - later) : -1.0);
}

// evaluate()'s work over the images (batches of 500, eval mode, no
// gradients): the model's forward eagerly and through nabla::compile, to
// decide whether evaluate/predict should compile too (best of 3, seconds).
void inference_costs(const data::DatasetPtr& set) {
  manual_seed(1);
  nn::ModulePtr model = zoo::fashion_cnn();
  model->eval();
  NoGradGuard no_grad;
  CompiledFunction forward = compile([&](const Tensor& x) { return (*model)(x); });
  data::DataLoader loader(set, {.batch_size = 500, .collate = data::collate_normalized});
  std::vector<Tensor> batches;
  for (const data::Example& b : loader) batches.push_back(b.data);
  auto time = [&](bool jit) {
    double best = 1e30;
    for (int r = 0; r < 3; ++r) {
      auto start = Clock::now();
      for (const Tensor& x : batches) (void)(jit ? forward(x) : (*model)(x)).sum().item<float>();
      best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
    }
    return best;
  };
  const double eager = time(false), compiled = time(true);
  std::printf("inference over %lld images: eager %.2f s, compiled %.2f s (ratio %.3f)\n",
              static_cast<long long>(set->size()), eager, compiled, compiled / eager);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) try {
  int64_t n = 6000;
  int rounds = 3;
  std::string dir = "/usr/share/datasets/fashion-mnist";
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--data") == 0 && i + 1 < argc)
      dir = argv[++i];
    else
      positional.push_back(argv[i]);
  }
  if (positional.size() > 0) n = std::atoll(positional[0].c_str());
  if (positional.size() > 1) rounds = std::atoi(positional[1].c_str());
  data::DatasetPtr train_set = data::load_fashion_mnist(dir, n).train;
  std::printf("fit_epoch_bench: %lld images, batch 64, 2 workers, %d threads, %d rounds\n",
              static_cast<long long>(train_set->size()), get_num_threads(), rounds);
  std::vector<double> loop, loop_jit, fit, fit_jit;
  for (int r = 0; r < rounds; ++r) {
    loop.push_back(hand_written_epoch(train_set, false));
    loop_jit.push_back(hand_written_epoch(train_set, true));
    fit.push_back(fit_epoch(train_set, train::Jit::Off));
    fit_jit.push_back(fit_epoch(train_set, train::Jit::On));
    std::printf("round %d: loop %.2f s, loop compiled %.2f s, fit eager %.2f s, fit compiled %.2f s\n", r + 1,
                loop.back(), loop_jit.back(), fit.back(), fit_jit.back());
  }
  const double base = median(loop);
  std::printf("median epoch: loop %.2f s, loop compiled %.2f s, fit eager %.2f s, fit compiled %.2f s\n", base,
              median(loop_jit), median(fit), median(fit_jit));
  std::printf(
      "ratios to the loop: fit(compiled)/loop %.3f, fit(eager)/loop %.3f, loop(compiled)/loop %.3f, "
      "fit(compiled)/loop(compiled) %.3f\n",
      median(fit_jit) / base, median(fit) / base, median(loop_jit) / base, median(fit_jit) / median(loop_jit));
  if (train_set->size() % 64 != 0) last_batch_costs(train_set->size() % 64);
  inference_costs(train_set);
  return 0;
} catch (const nabla::Error& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return 1;
}

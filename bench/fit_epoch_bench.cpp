// One epoch of train::Trainer::fit() against a hand-written loop (the one
// `nabla train` had before it ran on fit()) on the same model (zoo::fashion_cnn),
// data (the first N Fashion-MNIST training images), loader settings (batch
// 64, shuffled, 2 workers, data::collate_normalized) and optimizer (Adam
// 1e-3), in one process, alternating the two so that both see the same
// machine load (issue 16, acceptance 1: fit's epoch time no worse than the
// hand-written loop's). fit runs eagerly (Jit::Off) with the accuracy metric,
// no validation and verbose 0; the loop tracks the loss and accuracy as
// `nabla train` does.
//
//   fit_epoch_bench [N = 6000] [rounds = 3] [--data DIR]
//
// Prints each epoch's seconds and the ratio of the medians (fit / loop).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "nabla/nabla.h"

namespace {

using namespace nabla;
using Clock = std::chrono::steady_clock;

double hand_written_epoch(const data::DatasetPtr& train_set) {
  manual_seed(1);
  nn::ModulePtr model = zoo::fashion_cnn();
  optim::Adam adam(model->parameters(), optim::Options{{"lr", 1e-3}});
  data::DataLoader loader(
      train_set, {.batch_size = 64, .shuffle = true, .seed = 1, .num_workers = 2, .collate = data::collate_normalized});
  model->train();
  auto start = Clock::now();
  double loss_sum = 0;
  int64_t correct = 0, seen = 0;
  for (const data::Example& batch : loader) {
    Tensor logits = (*model)(batch.data);
    Tensor loss = cross_entropy(logits, batch.target);
    adam.zero_grad();
    loss.backward();
    adam.step();
    int64_t n = batch.target.size(0);
    loss_sum += static_cast<double>(loss.item<float>()) * static_cast<double>(n);
    {
      NoGradGuard no_grad;
      correct += eq(logits.argmax(1), batch.target).sum().item<int64_t>();
    }
    seen += n;
  }
  double s = std::chrono::duration<double>(Clock::now() - start).count();
  if (seen == 0 || loss_sum < 0 || correct < 0) std::abort();  // keep the values live
  return s;
}

double fit_epoch(const data::DatasetPtr& train_set) {
  manual_seed(1);
  nn::ModulePtr model = zoo::fashion_cnn();
  train::Trainer trainer(model,
                         {.optimizer = std::make_shared<optim::Adam>(model->parameters(), optim::Options{{"lr", 1e-3}}),
                          .metrics = {"accuracy"}});
  train::FitOptions o{.epochs = 1, .batch_size = 64, .verbose = 0, .jit = train::Jit::Off, .num_workers = 2, .seed = 1};
  o.collate = data::collate_normalized;
  auto start = Clock::now();
  trainer.fit(train_set, o);
  return std::chrono::duration<double>(Clock::now() - start).count();
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
  std::vector<double> loop, fit;
  for (int r = 0; r < rounds; ++r) {
    loop.push_back(hand_written_epoch(train_set));
    fit.push_back(fit_epoch(train_set));
    std::printf("round %d: hand-written loop %.2f s, fit %.2f s\n", r + 1, loop.back(), fit.back());
  }
  std::printf("median epoch: hand-written loop %.2f s, fit %.2f s, ratio fit/loop %.3f\n", median(loop), median(fit),
              median(fit) / median(loop));
  return 0;
} catch (const nabla::Error& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return 1;
}

// Data-parallel fit() (FitOptions::distributed with FitDataParallel): W ranks
// with batch B each train to the weights of one process fitting with batch
// W*B on the same data order, log the same (reduced) numbers on every rank,
// and only rank 0 prints. Written for any world size (ctest runs 1, 2, 3).
#include "nabla/distributed/fit.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <string>

#include "nabla/core/random.h"
#include "nabla/distributed/distributed.h"
#include "nabla/nn/activation.h"
#include "nabla/nn/linear.h"
#include "nabla/nn/sequential.h"
#include "nabla/ops/factory.h"
#include "nabla/ops/loss.h"
#include "nabla/optim/sgd.h"
#include "nabla/train/train.h"
#include "nabla/train/train_step.h"

namespace nabla::distributed {
namespace {

constexpr int64_t kIn = 16, kOut = 4, kPerRank = 8;

std::shared_ptr<nn::Sequential> tiny_mlp(uint64_t seed) {
  manual_seed(seed);
  return std::make_shared<nn::Sequential>(nn::Linear(kIn, 32), nn::ReLU(), nn::Linear(32, kOut));
}

// Per tensor, max |a - b| over max |b|.
double max_relative_difference(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    auto x = a[i].to(kFloat64).to_vector<double>(), y = b[i].to(kFloat64).to_vector<double>();
    double diff = 0, scale = 0;
    for (size_t k = 0; k < x.size(); ++k) {
      diff = std::max(diff, std::abs(x[k] - y[k]));
      scale = std::max(scale, std::abs(y[k]));
    }
    worst = std::max(worst, diff / scale);
  }
  return worst;
}

void expect_close(const std::vector<double>& a, const std::vector<double>& b, double tolerance, const char* what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_LE(std::abs(a[i] - b[i]), tolerance * std::max(1.0, std::abs(b[i]))) << what << " at epoch " << i;
}

TEST(FitDistributed, SameWeightsAndLogsAsOneProcessWithTheWholeBatch) {
  ProcessGroup pg = ProcessGroup::world();
  const int64_t W = pg.size();
  // The same data on every rank: 4 steps per epoch; validation of 21 samples
  // (not a multiple of 2 or 3: the ranks' parts differ by one).
  manual_seed(7);
  Tensor x = randn({4 * W * kPerRank, kIn}), y = randint(0, kOut, {4 * W * kPerRank});
  Tensor vx = randn({21, kIn}), vy = randint(0, kOut, {21});

  // The reference: one process, batch W*B, the same shuffling seed.
  auto reference = tiny_mlp(1);
  train::Trainer ref(reference,
                     {.optimizer = std::make_shared<optim::SGD>(reference->parameters(), optim::Options{{"lr", 0.5}}),
                      .metrics = {"accuracy"}});
  train::History want = ref.fit(x, y,
                                {.epochs = 2,
                                 .batch_size = W * kPerRank,
                                 .validation_data = train::Data(vx, vy),
                                 .verbose = 0,
                                 .jit = train::Jit::Off,
                                 .seed = 11});

  // Each rank starts from another initialisation: setup()'s broadcast makes them rank 0's.
  auto model = tiny_mlp(1 + static_cast<uint64_t>(pg.rank()));
  train::Trainer t(model, {.optimizer = std::make_shared<optim::SGD>(model->parameters(), optim::Options{{"lr", 0.5}}),
                           .metrics = {"accuracy"}});
  ::testing::internal::CaptureStdout();
  train::History got = t.fit(x, y,
                             {.epochs = 2,
                              .batch_size = kPerRank,
                              .validation_data = train::Data(vx, vy),
                              .verbose = 2,
                              .seed = 11,
                              .distributed = std::make_shared<FitDataParallel>(/*bucket_cap_mb=*/0.001)});
  const std::string printed = ::testing::internal::GetCapturedStdout();

  const double diff = max_relative_difference(model->parameters(), reference->parameters());
  if (pg.rank() == 0) std::cout << "[ fit W=" << W << " ] max relative weight difference " << diff << "\n";
  EXPECT_LT(diff, 1e-6);
  // The logs are the whole data's, the same on every rank.
  expect_close(got["loss"], want["loss"], 1e-5, "loss");
  expect_close(got["accuracy"], want["accuracy"], 1e-12, "accuracy");
  expect_close(got["val_loss"], want["val_loss"], 1e-5, "val_loss");
  expect_close(got["val_accuracy"], want["val_accuracy"], 1e-12, "val_accuracy");
  // One progress display, rank 0's.
  if (pg.rank() == 0)
    EXPECT_NE(printed.find("epoch 2/2"), std::string::npos) << printed;
  else
    EXPECT_EQ(printed, "");
}

// Raises at the start of one epoch on every rank (an interruption every rank
// sees at the same point, so none is left waiting), while armed.
class InterruptAt : public train::Callback {
 public:
  explicit InterruptAt(int epoch) : epoch_(epoch) {}
  void on_epoch_begin(int epoch, const train::Logs&) override {
    if (armed && epoch == epoch_) throw std::runtime_error("interrupted");
  }
  bool armed = true;

 private:
  int epoch_;
};

// BackupAndRestore in a data-parallel fit(): rank 0 writes the backup, every
// rank resumes from it, and the resumed run ends with the weights of a run
// that was never interrupted.
TEST(FitDistributed, BackupAndRestoreResumesEveryRankFromRankZerosBackup) {
  ProcessGroup pg = ProcessGroup::world();
  Tensor pid = tensor(std::vector<double>{pg.rank() == 0 ? static_cast<double>(::getpid()) : 0.0});
  pg.all_reduce(pid);  // rank 0's process id names the directory every rank uses
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("nabla_fit_distributed_" + std::to_string(static_cast<int64_t>(pid.item<double>())));
  manual_seed(3);
  Tensor x = randn({64, kIn}), y = randint(0, kOut, {64});
  auto run = [&](uint64_t init, std::vector<train::CallbackSpec> callbacks) {
    auto model = tiny_mlp(init);
    train::Trainer t(model, {.optimizer = std::make_shared<optim::SGD>(
                                 model->parameters(), optim::Options{{"lr", 0.2}, {"momentum", 0.9}})});
    try {
      t.fit(x, y,
            {.epochs = 3,
             .batch_size = 8,
             .callbacks = std::move(callbacks),
             .verbose = 0,
             .seed = 4,
             .distributed = std::make_shared<FitDataParallel>()});
    } catch (const std::runtime_error&) {
    }
    return model->parameters();
  };
  std::vector<Tensor> whole = run(1, {});

  auto interrupt = std::make_shared<InterruptAt>(2);
  train::BackupAndRestore backup((dir / "backup").string());
  run(1, {interrupt, backup});  // stops at epoch 2's start: the backup after epoch 1 is there
  pg.barrier();
  EXPECT_TRUE(std::filesystem::exists(backup.path()));
  interrupt->armed = false;
  // Another initialisation: the weights come from the backup, on every rank.
  std::vector<Tensor> resumed = run(2 + static_cast<uint64_t>(pg.rank()), {interrupt, backup});
  EXPECT_EQ(max_relative_difference(resumed, whole), 0.0);
  pg.barrier();
  EXPECT_FALSE(std::filesystem::exists(backup.path()));  // rank 0 deleted it at the end
  if (pg.rank() == 0) std::filesystem::remove_all(dir);
}

// Jit::On with FitOptions::distributed: forward and backward compiled, the
// all-reduce and the optimizer step eager (train_step.h). The same weights as
// the eager data-parallel fit and as one process on the whole batch.
TEST(FitDistributed, JitOnCompilesTheStepAndMatchesEagerAndOneProcess) {
  ProcessGroup pg = ProcessGroup::world();
  const int64_t W = pg.size();
  manual_seed(7);
  Tensor x = randn({4 * W * kPerRank, kIn}), y = randint(0, kOut, {4 * W * kPerRank});
  auto fit = [&](train::Jit jit, int64_t batch, bool distributed, uint64_t init) {
    auto model = tiny_mlp(init);
    train::Trainer t(model,
                     {.optimizer = std::make_shared<optim::SGD>(model->parameters(), optim::Options{{"lr", 0.5}})});
    t.fit(x, y,
          {.epochs = 2,
           .batch_size = batch,
           .verbose = 0,
           .jit = jit,
           .seed = 11,
           .distributed = distributed ? std::make_shared<FitDataParallel>(0.001) : nullptr});
    return model->parameters();
  };
  const auto one = fit(train::Jit::Off, W * kPerRank, false, 1);
  const auto eager = fit(train::Jit::Off, kPerRank, true, 1 + static_cast<uint64_t>(pg.rank()));
  const auto compiled = fit(train::Jit::On, kPerRank, true, 1 + static_cast<uint64_t>(pg.rank()));
  const double to_one = max_relative_difference(compiled, one), to_eager = max_relative_difference(compiled, eager);
  if (pg.rank() == 0)
    std::cout << "[ fit jit=on W=" << W << " ] max relative weight difference to one process " << to_one
              << ", to eager " << to_eager << "\n";
  EXPECT_LT(to_one, 1e-6);
  EXPECT_LT(to_eager, 1e-6);
}

// TrainStep with a gradient sync runs compiled (no eager fallback) and syncs
// every step: the replicas, started apart, stay equal.
TEST(FitDistributed, CompiledTrainStepSyncsEveryStep) {
  ProcessGroup pg = ProcessGroup::world();
  auto model = tiny_mlp(1 + static_cast<uint64_t>(pg.rank()));
  optim::SGD opt(model->parameters(), {{"lr", 0.5}});
  FitDataParallel parallel(0.001);
  parallel.setup(model);
  train::TrainStep step(*model, opt, [](const Tensor& out, const Tensor& t) { return cross_entropy(out, t); },
                        train::Jit::On);
  step.set_gradient_sync(&parallel);
  manual_seed(20 + static_cast<uint64_t>(pg.rank()));  // each rank its own data
  for (int i = 0; i < 3; ++i) {
    train::StepResult r = step(randn({kPerRank, kIn}), randint(0, kOut, {kPerRank}));
    EXPECT_EQ(r.loss.numel(), 1);
    EXPECT_EQ(r.output.sizes(), (std::vector<int64_t>{kPerRank, kOut}));
  }
  EXPECT_TRUE(step.compiled());
  EXPECT_EQ(step.compiled_steps(), 3);
  EXPECT_EQ(step.eager_steps(), 0);
  // Equal replicas: every rank's weights are rank 0's.
  for (const Tensor& p : model->parameters()) {
    Tensor mine = p.detach().clone(), first = p.detach().clone();
    pg.broadcast(first, 0);
    EXPECT_EQ(max_relative_difference({mine}, {first}), 0.0);
  }
}

}  // namespace
}  // namespace nabla::distributed

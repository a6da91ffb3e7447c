// Each built-in callback's behaviour inside Trainer::fit(), driven by chosen
// sequences of monitored values (ScriptedMetric).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/error_message.h"
#include "support/temp_files.h"
#include "train/fit_support.h"

namespace nabla::train {
namespace {

using nabla::testing::error_of;
using nabla::testing::expect_error;
using nabla::testing::fresh_temp_folder;
using testing::linear_problem;
using testing::linear_trainer;
using testing::same_weights;
using testing::ScriptedMetric;
using testing::WeightRecorder;

TEST(TrainCallbacks, EarlyStoppingStopsAfterPatienceEpochsWithoutImprovementAndRestoresTheBest) {
  auto [x, y] = linear_problem(40);
  // Epoch 0: 5 (best), 1: 4 (best), 2: 4.5 (wait 1), 3: 4.2 (wait 2 = patience: stop).
  Trainer t =
      linear_trainer(0.1, {std::make_shared<ScriptedMetric>("score", std::vector<double>{5, 4, 4.5, 4.2, 4.1, 3})});
  auto weights = std::make_shared<WeightRecorder>();
  auto stop = std::make_shared<EarlyStopping>(
      EarlyStoppingOptions{.monitor = "score", .patience = 2, .restore_best_weights = true});
  History h = t.fit(x, y, {.epochs = 6, .batch_size = 10, .callbacks = {weights, stop}, .verbose = 0});
  EXPECT_EQ(h.epoch, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(stop->stopped_epoch(), 3);
  EXPECT_EQ(stop->best_epoch(), 1);
  EXPECT_EQ(stop->best(), 4.0);
  EXPECT_TRUE(same_weights(t.model().state_dict(), weights->at.at(1)));
  EXPECT_FALSE(same_weights(t.model().state_dict(), weights->at.at(3)));
}

TEST(TrainCallbacks, EarlyStoppingMinDeltaAndMaxMode) {
  auto [x, y] = linear_problem(20);
  // min mode, min_delta 0.1: 4.95 is not 0.1 better than 5 -> stop at epoch 1 (patience 1).
  Trainer a = linear_trainer(0.1, {std::make_shared<ScriptedMetric>("score", std::vector<double>{5, 4.95, 4.9, 1})});
  auto s1 = std::make_shared<EarlyStopping>(EarlyStoppingOptions{.monitor = "score", .min_delta = 0.1, .patience = 1});
  EXPECT_EQ(a.fit(x, y, {.epochs = 4, .callbacks = {s1}, .verbose = 0}).epoch.size(), 2u);
  // "..._accuracy" is max in auto mode: rising values never stop it; weights stay the last epoch's.
  Trainer b =
      linear_trainer(0.1, {std::make_shared<ScriptedMetric>("my_accuracy", std::vector<double>{0.1, 0.2, 0.3})});
  auto s2 = std::make_shared<EarlyStopping>(
      EarlyStoppingOptions{.monitor = "my_accuracy", .patience = 0, .restore_best_weights = true});
  EXPECT_EQ(b.fit(x, y, {.epochs = 3, .callbacks = {s2}, .verbose = 0}).epoch.size(), 3u);
  EXPECT_EQ(s2->stopped_epoch(), 0);
  // A monitor that is not in the logs, a bad mode.
  auto s3 = std::make_shared<EarlyStopping>();
  expect_error(error_of([&] { b.fit(x, y, {.epochs = 1, .callbacks = {s3}, .verbose = 0}); }),
               {"EarlyStopping", "monitor 'val_loss'", "loss", "validation_split"});
  expect_error(error_of([] { EarlyStopping(EarlyStoppingOptions{.mode = "up"}); }), {"EarlyStopping", "\"up\""});
  expect_error(error_of([] { EarlyStopping(EarlyStoppingOptions{.patience = -1}); }), {"EarlyStopping", "patience"});
}

TEST(TrainCallbacks, ModelCheckpointWritesOnlyOnImprovement) {
  const std::string dir = fresh_temp_folder("nabla_train_ckpt");
  auto [x, y] = linear_problem(30);
  Trainer t = linear_trainer(0.1, {std::make_shared<ScriptedMetric>("score", std::vector<double>{3, 2, 2.5, 1})});
  auto weights = std::make_shared<WeightRecorder>();
  auto best = std::make_shared<ModelCheckpoint>(dir + "/best-{epoch}.safetensors",
                                                CheckpointOptions{.monitor = "score", .save_best_only = true});
  auto every = std::make_shared<ModelCheckpoint>(dir + "/every/e{epoch}.safetensors", CheckpointOptions{});
  t.fit(x, y, {.epochs = 4, .callbacks = {weights, best, every}, .verbose = 0});
  EXPECT_TRUE(std::filesystem::exists(dir + "/best-1.safetensors"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/best-2.safetensors"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/best-3.safetensors"));  // 2.5 is worse than 2
  EXPECT_TRUE(std::filesystem::exists(dir + "/best-4.safetensors"));
  for (int e = 1; e <= 4; ++e)
    EXPECT_TRUE(std::filesystem::exists(dir + "/every/e" + std::to_string(e) + ".safetensors"));
  // The file holds that epoch's weights and the monitored value.
  nn::Linear loaded(4, 3);
  io::Metadata meta = io::load_checkpoint(dir + "/best-2.safetensors", loaded);
  EXPECT_EQ(meta.at("epoch"), "2");
  EXPECT_EQ(std::stod(meta.at("score")), 2.0);
  EXPECT_TRUE(same_weights(loaded.state_dict(), weights->at.at(1)));
  EXPECT_EQ(best->best(), 1.0);
  std::filesystem::remove_all(dir);
}

TEST(TrainCallbacks, ReduceLROnPlateauLowersTheLearningRate) {
  auto [x, y] = linear_problem(20);
  Trainer t = linear_trainer(0.1, {std::make_shared<ScriptedMetric>("score", std::vector<double>{1, 1, 1, 1, 1})});
  // PyTorch's rule: epoch 0 sets the best; epochs 1 and 2 are bad; 2 > patience 1 -> halve; then wait again.
  auto plateau = std::make_shared<ReduceLROnPlateau>("score", optim::PlateauOptions{.factor = 0.5, .patience = 1});
  History h = t.fit(x, y, {.epochs = 5, .callbacks = {plateau}, .verbose = 0});
  // "lr" is read before the epoch-end callbacks: the rate the epoch trained with.
  EXPECT_EQ(h["lr"], (std::vector<double>{0.1, 0.1, 0.1, 0.05, 0.05}));
  EXPECT_DOUBLE_EQ(t.optimizer().param_groups()[0].lr(), 0.025);
}

TEST(TrainCallbacks, LearningRateSchedulerStepsPerEpochPerBatchOrByFunction) {
  auto [x, y] = linear_problem(40);  // batch 10: 4 batches per epoch
  Trainer a = linear_trainer(0.1);
  auto step_a = std::make_shared<optim::StepLR>(a.optimizer(), 1, 0.5);
  History ha = a.fit(
      x, y,
      {.epochs = 3, .batch_size = 10, .callbacks = {std::make_shared<LearningRateScheduler>(step_a)}, .verbose = 0});
  EXPECT_EQ(ha["lr"], (std::vector<double>{0.1, 0.05, 0.025}));
  Trainer b = linear_trainer(0.1);
  auto step_b = std::make_shared<optim::StepLR>(b.optimizer(), 1, 0.5);
  History hb =
      b.fit(x, y,
            {.epochs = 2,
             .batch_size = 10,
             .callbacks = {std::make_shared<LearningRateScheduler>(step_b, LearningRateScheduler::Every::Batch)},
             .verbose = 0});
  // "lr" is the rate at the epoch's end (before its epoch-end callbacks): 4 halvings per epoch.
  EXPECT_DOUBLE_EQ(hb["lr"][0], 0.1 / 16);
  EXPECT_DOUBLE_EQ(hb["lr"][1], 0.1 / 256);
  Trainer c = linear_trainer(0.1);
  auto fn = std::make_shared<LearningRateScheduler>([](int epoch, double) { return 0.3 / (epoch + 1); });
  History hc = c.fit(x, y, {.epochs = 3, .callbacks = {fn}, .verbose = 0});
  EXPECT_EQ(hc["lr"], (std::vector<double>{0.3 / 1, 0.3 / 2, 0.3 / 3}));
  auto bad = std::make_shared<LearningRateScheduler>([](int, double) { return -1.0; });
  expect_error(error_of([&] { c.fit(x, y, {.epochs = 1, .callbacks = {bad}, .verbose = 0}); }),
               {"LearningRateScheduler", "lr -1", ">= 0"});
}

TEST(TrainCallbacks, CSVLoggerWritesEpochThenSortedKeys) {
  const std::string dir = fresh_temp_folder("nabla_train_csv");
  auto [x, y] = linear_problem(40);
  Trainer t = linear_trainer();
  auto csv = std::make_shared<CSVLogger>(dir + "/log.csv");
  History h = t.fit(x, y, {.epochs = 3, .validation_split = 0.25, .callbacks = {csv}, .verbose = 0});
  std::ifstream in(dir + "/log.csv");
  std::string header, row;
  std::getline(in, header);
  EXPECT_EQ(header, "epoch,accuracy,loss,lr,val_accuracy,val_loss");
  for (int e = 0; e < 3; ++e) {
    ASSERT_TRUE(std::getline(in, row));
    std::stringstream fields(row);
    std::string epoch, acc, loss;
    std::getline(fields, epoch, ',');
    std::getline(fields, acc, ',');
    std::getline(fields, loss, ',');
    EXPECT_EQ(epoch, std::to_string(e));
    EXPECT_EQ(std::stod(acc), h["accuracy"][e]);  // %.17g: the same double
    EXPECT_EQ(std::stod(loss), h["loss"][e]);
  }
  EXPECT_FALSE(std::getline(in, row));
  // append: no second header.
  auto more = std::make_shared<CSVLogger>(dir + "/log.csv", ',', true);
  t.fit(x, y, {.epochs = 1, .validation_split = 0.25, .callbacks = {more}, .verbose = 0});
  std::ifstream again(dir + "/log.csv");
  int lines = 0;
  for (std::string l; std::getline(again, l);) lines += 1;
  EXPECT_EQ(lines, 5);
  std::filesystem::remove_all(dir);
}

TEST(TrainCallbacks, TerminateOnNaNStopsAtTheFirstBadBatch) {
  auto [x, y] = linear_problem(50);
  nn::ModulePtr model = std::make_shared<nn::Linear>(4, 3);
  int calls = 0;
  LossFn loss = [&](const Tensor& o, const Tensor& t) {
    Tensor l = cross_entropy(o, t);
    return ++calls == 3 ? l * std::numeric_limits<float>::quiet_NaN() : l;
  };
  Trainer t(model, {.optimizer = std::make_shared<optim::SGD>(model->parameters(), optim::Options{{"lr", 0.1}}),
                    .loss = loss});
  auto counter = std::make_shared<WeightRecorder>();
  auto nan = std::make_shared<TerminateOnNaN>();
  // The loss counts its calls in C++, which a traced step would do once (at
  // its trace): such a loss needs the eager step (docs/train_api.md, jit).
  History h =
      t.fit(x, y, {.epochs = 3, .batch_size = 10, .callbacks = {nan, counter}, .verbose = 0, .jit = Jit::Off});
  EXPECT_TRUE(nan->terminated());
  EXPECT_EQ(counter->batches, 3);  // batches 0, 1 and the NaN one
  EXPECT_EQ(h.epoch, (std::vector<int>{0}));
  EXPECT_TRUE(std::isnan(h["loss"][0]));
}

TEST(TrainCallbacks, ProgressBarPrintsLinesOffATerminalAndOneLinePerEpochAtVerbose2) {
  auto [x, y] = linear_problem(100);
  Trainer t = linear_trainer();
  std::ostringstream lines, per_epoch;
  t.fit(x, y,
        {.epochs = 2,
         .batch_size = 10,
         .validation_split = 0.2,
         .callbacks = {std::make_shared<ProgressBarCallback>(1, &lines, 0)}});
  std::string l = lines.str();
  EXPECT_EQ(l.find('\r'), std::string::npos);
  EXPECT_NE(l.find("epoch 1/2 8/8  loss "), std::string::npos) << l;
  EXPECT_NE(l.find("samples/s  ETA"), std::string::npos) << l;
  EXPECT_NE(l.find("epoch 2/2:  loss "), std::string::npos) << l;
  EXPECT_NE(l.find("val_accuracy"), std::string::npos) << l;
  t.fit(x, y, {.epochs = 2, .batch_size = 10, .callbacks = {std::make_shared<ProgressBarCallback>(2, &per_epoch, 0)}});
  std::string p = per_epoch.str();
  EXPECT_EQ(std::count(p.begin(), p.end(), '\n'), 2) << p;
  EXPECT_NE(p.find("epoch 1/2 - 0:0"), std::string::npos) << p;
  std::ostringstream bar;
  t.fit(x, y, {.epochs = 1, .batch_size = 10, .callbacks = {std::make_shared<ProgressBarCallback>(1, &bar, 1)}});
  EXPECT_NE(bar.str().find('\r'), std::string::npos);
  EXPECT_NE(bar.str().find("] 10/10"), std::string::npos) << bar.str();
}

TEST(TrainCallbacks, CallbacksSeeEveryHookInOrder) {
  struct Trace : Callback {
    std::string log;
    void on_train_begin(const Logs&) override { log += "T"; }
    void on_epoch_begin(int e, const Logs&) override { log += "E" + std::to_string(e); }
    void on_train_batch_begin(int64_t b, const Logs&) override { log += "b" + std::to_string(b); }
    void on_train_batch_end(int64_t b, const Logs& logs) override { log += logs.count("loss") ? "." : "?"; }
    void on_epoch_end(int e, const Logs& logs) override { log += logs.count("val_loss") ? "v" : "!"; }
    void on_train_end(const Logs&) override { log += "t"; }
  };
  auto [x, y] = linear_problem(20);
  Trainer t = linear_trainer();
  auto trace = std::make_shared<Trace>();
  t.fit(x, y, {.epochs = 2, .batch_size = 8, .validation_split = 0.2, .callbacks = {trace}, .verbose = 0});
  EXPECT_EQ(trace->log, "TE0b0.b1.vE1b0.b1.vt");
  expect_error(error_of([&] { trace->trainer(); }), {"Callback::trainer", "not inside"});
}

}  // namespace
}  // namespace nabla::train

// train::Trainer: History contents, validation_split semantics, the three
// kinds of data, predict/evaluate, and errors that name the API.
#include <gtest/gtest.h>

#include <set>

#include "support/error_message.h"
#include "train/fit_support.h"

namespace nabla::train {
namespace {

using nabla::testing::error_of;
using nabla::testing::expect_error;
using testing::linear_problem;
using testing::linear_trainer;

TEST(TrainFit, HistoryHasEveryMetricPerEpochForTrainingAndValidation) {
  auto [x, y] = linear_problem(200);
  Trainer t = linear_trainer(0.5, {"accuracy", "f1"});
  History h = t.fit(x, y, {.epochs = 4, .batch_size = 20, .validation_split = 0.25, .verbose = 0});
  EXPECT_EQ(h.epoch, (std::vector<int>{0, 1, 2, 3}));
  for (const char* key : {"loss", "accuracy", "f1", "val_loss", "val_accuracy", "val_f1", "lr"})
    EXPECT_EQ(h[key].size(), 4u) << key;
  EXPECT_EQ(h.history.size(), 7u);
  EXPECT_LT(h["loss"].back(), h["loss"].front());
  EXPECT_GT(h["val_accuracy"].back(), 0.8);
  EXPECT_EQ(h["lr"], (std::vector<double>(4, 0.5)));
  // The last validation values are evaluate() on the last 25% of the samples.
  Logs v = t.evaluate(x.narrow(0, 150, 50), y.narrow(0, 150, 50), {.batch_size = 20});
  EXPECT_DOUBLE_EQ(v.at("loss"), h["val_loss"].back());
  EXPECT_DOUBLE_EQ(v.at("accuracy"), h["val_accuracy"].back());
  EXPECT_DOUBLE_EQ(v.at("f1"), h["val_f1"].back());
  expect_error(error_of([&] { (void)h["val_auc"]; }), {"History", "'val_auc'", "val_accuracy"});
}

TEST(TrainFit, TrainingLossIsTheSampleWeightedMeanOfTheBatchLosses) {
  auto [x, y] = linear_problem(30);
  Trainer t = linear_trainer(0.0);  // lr 0: every batch sees the initial weights
  Logs before = t.evaluate(x, y, {.batch_size = 30});
  // Batches of 8, 8, 8, 6: the weighted mean equals the loss over all 30 samples.
  History h = t.fit(x, y, {.epochs = 1, .batch_size = 8, .shuffle = false, .verbose = 0});
  EXPECT_NEAR(h["loss"][0], before.at("loss"), 1e-6);
  EXPECT_DOUBLE_EQ(h["accuracy"][0], before.at("accuracy"));
}

// Records the targets each update() sees, since the last reset().
class TargetRecorder : public Metric {
 public:
  std::string name() const override { return "seen"; }
  void reset() override { seen.clear(); }
  void update(const Tensor&, const Tensor& target) override {
    for (int64_t i = 0; i < target.size(0); ++i) seen.push_back(target[i].item<int64_t>());
  }
  double result() const override { return static_cast<double>(seen.size()); }
  std::vector<int64_t> seen;
};

TEST(TrainFit, ValidationSplitTakesTheLastFractionBeforeShuffling) {
  Tensor x = arange(10, kFloat32).reshape({10, 1});
  Tensor y = arange(10, kInt64);
  nn::ModulePtr model = std::make_shared<nn::Linear>(1, 10);
  auto recorder = std::make_shared<TargetRecorder>();
  Trainer t(model, {.optimizer = std::make_shared<optim::SGD>(model->parameters(), optim::Options{{"lr", 0.01}}),
                    .metrics = {recorder}});
  // 10 * (1 - 0.25) = 7.5 -> the first 7 train (shuffled), the last 3 validate.
  History h = t.fit(x, y, {.epochs = 1, .batch_size = 4, .validation_split = 0.25, .shuffle = true, .verbose = 0});
  EXPECT_EQ(h["seen"][0], 7.0);
  EXPECT_EQ(h["val_seen"][0], 3.0);
  EXPECT_EQ(recorder->seen, (std::vector<int64_t>{7, 8, 9}));  // the validation pass came last
  // The same with a Dataset.
  auto ds = std::make_shared<data::TensorDataset>(x, y);
  t.fit(ds, {.epochs = 1, .batch_size = 4, .validation_split = 0.25, .verbose = 0});
  EXPECT_EQ(recorder->seen, (std::vector<int64_t>{7, 8, 9}));
  expect_error(error_of([&] { t.fit(x, y, {.validation_split = 0.95, .verbose = 0}); }),
               {"Trainer::fit", "validation_split 0.95 of 10 samples", "leaves 0 for training", "10 for validation"});
  expect_error(error_of([&] { t.fit(x, y, {.validation_split = 1.0, .verbose = 0}); }), {"Trainer::fit", "[0, 1)"});
}

TEST(TrainFit, ShuffleDrawsANewOrderEachEpochAndSeesEverySample) {
  Tensor x = arange(12, kFloat32).reshape({12, 1});
  Tensor y = arange(12, kInt64);
  nn::ModulePtr model = std::make_shared<nn::Linear>(1, 12);
  auto recorder = std::make_shared<TargetRecorder>();
  Trainer t(model, {.optimizer = std::make_shared<optim::SGD>(model->parameters(), optim::Options{{"lr", 0.0}}),
                    .metrics = {recorder}});
  t.fit(x, y, {.epochs = 1, .batch_size = 5, .shuffle = false, .verbose = 0});
  EXPECT_EQ(recorder->seen, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  t.fit(x, y, {.epochs = 1, .batch_size = 5, .shuffle = true, .verbose = 0});
  std::vector<int64_t> shuffled = recorder->seen;
  EXPECT_NE(shuffled, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(std::set<int64_t>(shuffled.begin(), shuffled.end()).size(), 12u);
}

TEST(TrainFit, TrainsFromADatasetAndADataLoader) {
  auto [x, y] = linear_problem(120);
  auto ds = std::make_shared<data::TensorDataset>(x, y);
  Trainer a = linear_trainer(0.5);
  History ha = a.fit(ds, {.epochs = 3, .batch_size = 16, .verbose = 0});
  EXPECT_GT(ha["accuracy"].back(), 0.8);
  data::DataLoader loader(ds, {.batch_size = 16, .shuffle = true, .seed = 3});
  Trainer b = linear_trainer(0.5);
  History hb = b.fit(loader, {.epochs = 3, .validation_data = Data(x, y), .verbose = 0});
  EXPECT_GT(hb["val_accuracy"].back(), 0.8);
  expect_error(error_of([&] { b.fit(loader, {.batch_size = 8, .verbose = 0}); }),
               {"Trainer::fit", "batch_size", "DataLoader", "got batch_size 8"});
  expect_error(error_of([&] { b.fit(loader, {.validation_split = 0.2, .verbose = 0}); }),
               {"Trainer::fit", "validation_split needs tensors or a Dataset"});
}

TEST(TrainFit, InitialEpochStartsTheCountLater) {
  auto [x, y] = linear_problem(40);
  Trainer t = linear_trainer();
  History h = t.fit(x, y, {.epochs = 5, .initial_epoch = 3, .verbose = 0});
  EXPECT_EQ(h.epoch, (std::vector<int>{3, 4}));
}

TEST(TrainFit, PredictReturnsTheOutputsInEvalModeInOrder) {
  auto [x, y] = linear_problem(70);
  manual_seed(5);
  nn::ModulePtr model = std::make_shared<nn::Sequential>(nn::Linear(4, 8), nn::Dropout(0.5), nn::Linear(8, 3));
  Trainer t(model, {.optimizer = std::make_shared<optim::SGD>(model->parameters(), optim::Options{{"lr", 0.1}})});
  Tensor p = t.predict(x, {.batch_size = 16});
  model->eval();
  Tensor direct = (*model)(x);
  EXPECT_EQ(p.sizes(), (std::vector<int64_t>{70, 3}));
  EXPECT_TRUE(allclose(p, direct, 1e-5, 1e-6));
  EXPECT_FALSE(p.requires_grad());
}

TEST(TrainFit, BadInputNamesTheApi) {
  auto [x, y] = linear_problem(20);
  Trainer t = linear_trainer();
  expect_error(error_of([&] { t.fit(x, y.narrow(0, 0, 10), {.verbose = 0}); }),
               {"train::Data", "x has 20 samples", "[10]"});
  expect_error(error_of([&] { t.fit(x, y, {.epochs = -1, .verbose = 0}); }), {"Trainer::fit", "epochs", "-1"});
  expect_error(error_of([&] { t.fit(x, y, {.verbose = 3}); }), {"Trainer::fit", "verbose", "3"});
  expect_error(error_of([&] { t.fit(x, Tensor(), {.verbose = 0}); }), {"Trainer::fit", "no targets"});
  expect_error(error_of([&] { t.fit(x, y, {.validation_data = Data(x, y), .validation_split = 0.5, .verbose = 0}); }),
               {"Trainer::fit", "not both"});
  expect_error(error_of([&] { t.fit(x.narrow(0, 0, 0), y.narrow(0, 0, 0), {.verbose = 0}); }),
               {"Trainer::fit", "no samples"});
  EXPECT_NE(error_of([&] { t.fit(x.narrow(1, 0, 3), y, {.verbose = 0}); }), nabla::testing::kNoError);  // the layer's
  expect_error(error_of([] { Trainer(std::make_shared<nn::Linear>(4, 3), {}); }),
               {"train::Trainer", "optimizer is required"});
  expect_error(error_of([] { make_loss("hinge"); }), {"make_loss", "'hinge'", "cross_entropy"});
  expect_error(error_of([] {
                 linear_trainer(0.1, {"accuracy", "acc"});
               }),
               {"train::Trainer", "two metrics", "accuracy"});
}

// Auto compiles this step (tests/train/fit_jit_test.cpp compares compiled
// and eager training in depth): the same training, bit for bit.
TEST(TrainFit, JitOffAndAutoTrainTheSame) {
  auto [x, y] = linear_problem(60);
  manual_seed(9);
  Trainer a = linear_trainer();
  History ha = a.fit(x, y, {.epochs = 2, .verbose = 0, .jit = Jit::Off, .seed = 4});
  manual_seed(9);
  Trainer b = linear_trainer();
  History hb = b.fit(x, y, {.epochs = 2, .verbose = 0, .jit = Jit::Auto, .seed = 4});
  EXPECT_EQ(ha["loss"], hb["loss"]);
  EXPECT_TRUE(testing::same_weights(a.model().state_dict(), b.model().state_dict()));
}

}  // namespace
}  // namespace nabla::train

// FitOptions::jit: fit() with the compiled training step (train_step.h)
// against the eager one. Twin models (same initial weights, same data order,
// same random stream for dropout) trained with Jit::Auto and Jit::Off must end
// with the same weights, batch-norm statistics and History; a step that
// cannot be traced is an Error under Jit::On and an eager fallback, said once,
// under Jit::Auto.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "nabla/train/train_step.h"
#include "support/error_message.h"
#include "train/fit_support.h"

namespace nabla::train {
namespace {

using nabla::testing::error_of;
using nabla::testing::expect_error;

// 3 classes of 8x8 images: the argmax of three fixed projections.
testing::Problem image_problem(int64_t n) {
  manual_seed(11);
  Tensor x = randn({n, 1, 8, 8});
  Tensor w = randn({64, 3});
  return {x, matmul(x.reshape({n, 64}), w).argmax(1)};
}

// fashion_cnn in small: conv, pool, batch norm, dropout.
nn::ModulePtr small_cnn() {
  return std::make_shared<nn::Sequential>(std::vector<nn::ModulePtr>{
      std::make_shared<nn::Conv2d>(1, 4, 3, 1, 1), std::make_shared<nn::ReLU>(), std::make_shared<nn::MaxPool2d>(2),
      std::make_shared<nn::BatchNorm2d>(4), std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(64, 16),
      std::make_shared<nn::ReLU>(), std::make_shared<nn::Dropout>(0.25), std::make_shared<nn::Linear>(16, 3)});
}

struct TrainedRun {
  nn::ModulePtr model;
  History history;
};

// Trains small_cnn (weights drawn from seed 5) with `jit` and the callbacks `make_callbacks` gives.
TrainedRun train_cnn(Jit jit, int epochs,
                     const std::function<std::vector<CallbackSpec>(optim::Optimizer&)>& make_callbacks = {},
                     LossFn loss = make_loss("cross_entropy"), std::vector<MetricSpec> metrics = {"accuracy"}) {
  auto [x, y] = image_problem(100);
  manual_seed(5);
  TrainedRun r{small_cnn(), {}};
  auto adam = std::make_shared<optim::Adam>(r.model->parameters(), optim::Options{{"lr", 1e-2}});
  Trainer t(r.model, {.optimizer = adam, .loss = std::move(loss), .metrics = std::move(metrics)});
  FitOptions o{.epochs = epochs, .batch_size = 32, .validation_split = 0.2, .verbose = 0, .jit = jit, .seed = 4};
  if (make_callbacks) o.callbacks = make_callbacks(*adam);
  manual_seed(6);  // dropout's masks
  r.history = t.fit(x, y, o);
  return r;
}

// Compiled and eager steps run the same kernels on the same values in the
// same order (the Session's fused elementwise loops round each op as the
// eager op does; gradients are the eager rules'), and dropout draws the same
// masks: the weights, buffers and History agree bit for bit.
void expect_same_training(const TrainedRun& compiled, const TrainedRun& eager) {
  auto a = compiled.model->state_dict(), b = eager.model->state_dict();
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [k, t] : b)
    EXPECT_TRUE(equal(a.at(k), t)) << k << ": max diff "
                                   << (a.at(k).to(kFloat64) - t.to(kFloat64)).abs().max().item<double>();
  EXPECT_EQ(compiled.history.epoch, eager.history.epoch);
  EXPECT_EQ(compiled.history.history, eager.history.history);
}

TEST(FitJit, CompiledFitTrainsLikeEagerFitBatchNormAndDropoutIncluded) {
  TrainedRun eager = train_cnn(Jit::Off, 3);
  TrainedRun compiled = train_cnn(Jit::On, 3);  // On: an Error unless every step ran compiled
  expect_same_training(compiled, eager);
  // It trained: the running statistics moved and the loss went down.
  auto bn = compiled.model->state_dict();
  EXPECT_EQ(bn.at("3.num_batches_tracked").item<int64_t>(), 9);  // 80 samples: batches of 32, 32, 16
  EXPECT_FALSE(equal(bn.at("3.running_var"), ones({4})));
  EXPECT_LT(compiled.history["loss"].back(), compiled.history["loss"].front());
  // Auto compiles this model: the very same run as On.
  TrainedRun automatic = train_cnn(Jit::Auto, 3);
  EXPECT_TRUE(testing::same_weights(automatic.model->state_dict(), compiled.model->state_dict()));
  EXPECT_EQ(automatic.history.history, compiled.history.history);
}

TEST(FitJit, TrainStepTracesEachBatchShapeOnceAndAgainAfterAModeChange) {
  manual_seed(5);
  nn::ModulePtr model = small_cnn();
  optim::SGD sgd(model->parameters(), {{"lr", 0.1}});
  TrainStep step(*model, sgd, make_loss("cross_entropy"), Jit::On);
  auto batch = [](int64_t n) { return std::pair{randn({n, 1, 8, 8}), randint(0, 3, {n})}; };
  for (int64_t n : {32, 32, 16, 32, 16}) {
    auto [x, y] = batch(n);
    StepResult r = step(x, y);
    EXPECT_EQ(r.output.sizes(), (std::vector<int64_t>{n, 3}));
    EXPECT_EQ(r.loss.numel(), 1);
    EXPECT_FALSE(r.output.requires_grad());
  }
  EXPECT_TRUE(step.compiled());
  EXPECT_EQ(step.num_traces(), 2);
  EXPECT_EQ(step.compiled_steps(), 5);
  EXPECT_EQ(step.eager_steps(), 0);
  // Past kMaxTraces shapes, new ones run eagerly.
  for (int64_t n = 1; n <= 4; ++n) {
    auto [x, y] = batch(n + 2);
    step(x, y);
  }
  EXPECT_EQ(step.num_traces(), TrainStep::kMaxTraces);
  EXPECT_EQ(step.eager_steps(), 2);
  // A module switched to eval mode: traced afresh.
  model->named_modules()[3].second->eval();
  auto [x, y] = batch(32);
  step(x, y);
  EXPECT_EQ(step.num_traces(), 1);
  EXPECT_EQ(step.compiled_steps(), 8);
}

TEST(FitJit, LearningRateCallbacksTakeEffectInCompiledSteps) {
  // Per batch: StepLR halves the lr every 2 batches.
  auto per_batch = [](optim::Optimizer& opt) -> std::vector<CallbackSpec> {
    auto step_lr = std::make_shared<optim::StepLR>(opt, 2, 0.5);
    return {LearningRateScheduler(step_lr, LearningRateScheduler::Every::Batch)};
  };
  TrainedRun eager = train_cnn(Jit::Off, 2, per_batch);
  TrainedRun compiled = train_cnn(Jit::On, 2, per_batch);
  expect_same_training(compiled, eager);
  EXPECT_DOUBLE_EQ(compiled.history["lr"].back(), 1e-2 * 0.5 * 0.5 * 0.5);  // 6 batches
  TrainedRun constant_lr = train_cnn(Jit::On, 2);
  EXPECT_FALSE(allclose(constant_lr.model->parameters()[0], compiled.model->parameters()[0], 1e-4, 1e-5));
  // Per epoch: ReduceLROnPlateau on a value that never improves.
  auto plateau = [](optim::Optimizer&) -> std::vector<CallbackSpec> {
    return {ReduceLROnPlateau("loss", {.mode = "max", .factor = 0.5, .patience = 0, .threshold = 10})};
  };
  TrainedRun eager_p = train_cnn(Jit::Off, 3, plateau);
  TrainedRun compiled_p = train_cnn(Jit::On, 3, plateau);
  // The lr logged at an epoch's end is the one before that epoch's callbacks.
  EXPECT_EQ(compiled_p.history["lr"], (std::vector<double>{1e-2, 1e-2, 5e-3}));
  expect_same_training(compiled_p, eager_p);
}

// A user loss (label-smoothed cross entropy plus a penalty on the logits) and a
// user metric are traced and computed like the built-in ones.
class MeanLogit : public Metric {
 public:
  std::string name() const override { return "mean_logit"; }
  void reset() override { sum_ = n_ = 0; }
  void update(const Tensor& output, const Tensor&) override {
    sum_ += output.sum().item<double>();
    n_ += static_cast<double>(output.numel());
  }
  double result() const override { return n_ > 0 ? sum_ / n_ : 0; }

 private:
  double sum_ = 0, n_ = 0;
};

TEST(FitJit, UserLossAndMetricWorkCompiled) {
  LossFn loss = [](const Tensor& out, const Tensor& target) {
    return cross_entropy(out, target, Tensor(), -100, "mean", 0.1) + 1e-3 * (out * out).mean();
  };
  TrainedRun eager = train_cnn(Jit::Off, 2, {}, loss, {"accuracy", std::make_shared<MeanLogit>()});
  TrainedRun compiled = train_cnn(Jit::On, 2, {}, loss, {"accuracy", std::make_shared<MeanLogit>()});
  EXPECT_EQ(compiled.history["mean_logit"].size(), 2u);
  expect_same_training(compiled, eager);
}

// Branches on the data of its input: cannot be traced.
class DataDependent : public nn::Module {
 public:
  Tensor forward(const Tensor& x) override { return x.sum().item<double>() > 0 ? x : -x; }
};

TEST(FitJit, JitOnRefusesAStepThatCannotBeTracedAndAutoFallsBackSayingWhyOnce) {
  auto [x, y] = testing::linear_problem(64);
  auto make = [] {
    manual_seed(3);
    return std::make_shared<nn::Sequential>(nn::Linear(4, 3), DataDependent());
  };
  nn::ModulePtr model = make();
  Trainer t(model, {.optimizer = std::make_shared<optim::SGD>(model->parameters(), optim::Options{{"lr", 0.1}})});
  Tensor before = model->parameters()[0].detach().clone();
  expect_error(error_of([&] { t.fit(x, y, {.batch_size = 16, .verbose = 0, .jit = Jit::On}); }),
               {"Trainer::fit", "Jit::On", "cannot be compiled", "Jit::Auto", "reads the data of a traced tensor"});
  EXPECT_TRUE(equal(model->parameters()[0], before));  // the failed trace changed nothing

  ::testing::internal::CaptureStdout();
  History auto_h = t.fit(x, y, {.epochs = 2, .batch_size = 16, .verbose = 2, .jit = Jit::Auto, .seed = 2});
  std::string out = ::testing::internal::GetCapturedStdout();
  const std::string said = "Trainer::fit: the training step runs eagerly (jit = auto): ";
  ASSERT_NE(out.find(said), std::string::npos) << out;
  EXPECT_EQ(out.find(said, out.find(said) + 1), std::string::npos) << "said more than once:\n" << out;
  EXPECT_NE(out.find("reads the data of a traced tensor"), std::string::npos) << out;

  // The fallback is the eager step: the same training as Jit::Off, bit for bit.
  nn::ModulePtr twin = make();
  Trainer off(twin, {.optimizer = std::make_shared<optim::SGD>(twin->parameters(), optim::Options{{"lr", 0.1}})});
  History off_h = off.fit(x, y, {.epochs = 2, .batch_size = 16, .verbose = 0, .jit = Jit::Off, .seed = 2});
  EXPECT_EQ(auto_h["loss"], off_h["loss"]);
  EXPECT_TRUE(testing::same_weights(model->state_dict(), twin->state_dict()));
}

TEST(FitJit, BatchNormWithoutMomentumFallsBackWithTheLayersReason) {
  auto [x, y] = image_problem(64);
  nn::ModulePtr model = std::make_shared<nn::Sequential>(nn::Conv2d(1, 2, 3), nn::BatchNorm2d(2, 1e-5, std::nullopt),
                                                         nn::Flatten(), nn::Linear(72, 3));
  Trainer t(model, {.optimizer = std::make_shared<optim::SGD>(model->parameters(), optim::Options{{"lr", 0.1}})});
  expect_error(error_of([&] { t.fit(x, y, {.batch_size = 16, .verbose = 0, .jit = Jit::On}); }),
               {"Trainer::fit", "Jit::On", "nn::BatchNorm2d", "momentum = None"});
  ::testing::internal::CaptureStdout();
  t.fit(x, y, {.batch_size = 16, .verbose = 2});
  std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("runs eagerly (jit = auto): compile (compiled at"), std::string::npos) << out;
  EXPECT_NE(out.find("momentum = None"), std::string::npos) << out;
  EXPECT_EQ(model->state_dict().at("1.num_batches_tracked").item<int64_t>(), 4);  // 4 eager steps
}

// A callback that holds the batch norm in eval mode from the second epoch on
// (the statistics of a frozen layer): the step is traced afresh.
class HoldBatchNorm : public Callback {
 public:
  void on_epoch_begin(int epoch, const Logs&) override {
    if (epoch >= 1) trainer().model().named_modules()[3].second->eval();
  }
};

TEST(FitJit, AModeChangeBetweenEpochsTracesTheStepAfresh) {
  auto hold = [](optim::Optimizer&) -> std::vector<CallbackSpec> { return {HoldBatchNorm()}; };
  TrainedRun eager = train_cnn(Jit::Off, 3, hold);
  TrainedRun compiled = train_cnn(Jit::On, 3, hold);
  expect_same_training(compiled, eager);
  EXPECT_EQ(compiled.model->state_dict().at("3.num_batches_tracked").item<int64_t>(), 3);  // first epoch only
}

}  // namespace
}  // namespace nabla::train

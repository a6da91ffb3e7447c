// BackupAndRestore in-process: a fit() interrupted by an exception at chosen
// batches and run again ends with the weights and History of a run that was
// never interrupted; damaged, foreign and mismatching backups are refused
// with errors naming BackupAndRestore and the file. The SIGKILL test is
// backup_kill_test.cpp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/error_message.h"
#include "train/backup_support.h"
#include "train/fit_support.h"

namespace nabla::train {
namespace {

namespace fs = std::filesystem;
using nabla::testing::error_of;
using nabla::testing::expect_error;
using testing::CrashAt;
using testing::same_weights;
using testing::small_fit;
using testing::SmallFit;

std::string temp_dir(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("nabla_backup_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir.string();
}

void expect_same_run(const SmallFit& got, const SmallFit& want, const std::string& what) {
  EXPECT_TRUE(same_weights(got.weights, want.weights)) << what;
  EXPECT_EQ(got.history.epoch, want.history.epoch) << what;
  EXPECT_EQ(got.history.history, want.history.history) << what;  // every logged value, to the bit
}

// The run, crashed at each batch of `crashes` in turn (counted in each
// process from 1) and resumed, then completed.
SmallFit crashed_and_resumed(const std::string& dir, BackupOptions backup, const std::vector<int64_t>& crashes) {
  for (int64_t n : crashes) {
    EXPECT_THROW(small_fit(dir, backup, {CrashAt(n)}), std::runtime_error) << "crash at " << n;
  }
  return small_fit(dir, backup, {CrashAt(0)});  // the same callbacks, no crash
}

TEST(BackupAndRestore, ResumedRunsEndBitIdenticalToAnUninterruptedOne) {
  const std::string dir = temp_dir("resume");
  const SmallFit reference = small_fit(temp_dir("reference"), {});
  ASSERT_EQ(reference.history.epoch.size(), 4u);
  // 13 batches per epoch; batch 13 is an epoch's last, 14 the next one's first.
  const std::vector<std::vector<int64_t>> crash_lists = {{1}, {7}, {13}, {14}, {27}, {5, 9, 2, 30}, {51}};
  for (int64_t save_freq : {int64_t{0}, int64_t{1}, int64_t{3}}) {
    for (const auto& crashes : crash_lists) {
      std::string what = "save_freq " + std::to_string(save_freq) + ", crashes at";
      for (int64_t n : crashes) what += " " + std::to_string(n);
      fs::remove_all(dir);
      expect_same_run(crashed_and_resumed(dir, {.save_freq = save_freq}, crashes), reference, what);
      EXPECT_FALSE(fs::exists(dir)) << what << ": the backup is deleted when fit() ends normally";
    }
  }
}

TEST(BackupAndRestore, TheResumedRunKeepsTheInterruptedRunsDrawnShuffleSeedAndRandomStream) {
  const SmallFit reference = small_fit(temp_dir("seed_reference"), {});
  // Drawing before fit() changes the shuffling seed fit() draws and the dropout masks...
  const SmallFit shifted = small_fit(temp_dir("seed_shifted"), {}, {CrashAt(0)}, {"accuracy", "f1"}, 1);
  EXPECT_FALSE(same_weights(shifted.weights, reference.weights));
  // ...but not those of a run resumed from a backup: it goes on with the saved ones.
  const std::string dir = temp_dir("seed");
  for (int64_t save_freq : {int64_t{0}, int64_t{1}}) {
    EXPECT_THROW(small_fit(dir, {.save_freq = save_freq}, {CrashAt(20)}), std::runtime_error);
    const SmallFit resumed = small_fit(dir, {.save_freq = save_freq}, {CrashAt(0)}, {"accuracy", "f1"}, 1);
    expect_same_run(resumed, reference, "save_freq " + std::to_string(save_freq));
  }
}

TEST(BackupAndRestore, KeepsTheBackupWhenFitRaisesOrWhenAskedTo) {
  const std::string dir = temp_dir("keep");
  BackupAndRestore probe(dir);
  EXPECT_THROW(small_fit(dir, {.save_freq = 1}, {CrashAt(3)}), std::runtime_error);
  EXPECT_TRUE(fs::exists(probe.path()));
  io::TrainingState s = io::read_training_state(probe.path());
  EXPECT_EQ(s.epoch, 0);
  EXPECT_EQ(s.step, 2);  // batches 1 and 2 were backed up, the 3rd crashed before its backup
  EXPECT_EQ(s.info.at("backup.batch"), "2");
  small_fit(dir, {.save_freq = 1, .delete_checkpoint = false}, {CrashAt(0)});
  EXPECT_TRUE(fs::exists(probe.path()));
  s = io::read_training_state(probe.path());  // the last backup: after the last epoch's 13th batch
  EXPECT_EQ(s.epoch, 3);
  EXPECT_EQ(s.info.at("backup.batch"), "13");
  fs::remove_all(dir);
}

TEST(BackupAndRestore, DamagedOrForeignBackupsAreRefusedNamingTheFile) {
  const std::string dir = temp_dir("damaged");
  BackupAndRestore probe(dir);
  EXPECT_THROW(small_fit(dir, {.save_freq = 1}, {CrashAt(5)}), std::runtime_error);
  std::string bytes;
  {
    std::ifstream in(probe.path(), std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_GT(bytes.size(), 1000u);
  auto write = [&](const std::string& content) {
    std::ofstream(probe.path(), std::ios::binary | std::ios::trunc) << content;
  };
  auto resume_error = [&] { return error_of([&] { small_fit(dir, {.save_freq = 1}); }); };

  write(bytes.substr(0, bytes.size() / 2));  // truncated
  expect_error(resume_error(), {"BackupAndRestore", probe.path().c_str()});
  write(bytes.substr(0, 5));  // shorter than the header's length
  expect_error(resume_error(), {"BackupAndRestore", probe.path().c_str()});
  std::string corrupt = bytes;
  for (std::size_t i = 8; i < 40; ++i) corrupt[i] = '#';  // the JSON header
  write(corrupt);
  expect_error(resume_error(), {"BackupAndRestore", probe.path().c_str()});
  write("not a backup at all");
  expect_error(resume_error(), {"BackupAndRestore", probe.path().c_str()});

  // Foreign: a plain tensor file, a model checkpoint, a training state of another program.
  nn::Linear other(12, 4);
  optim::SGD sgd(other.parameters(), {{"lr", 0.1}});
  io::save_safetensors(probe.path(), {{"w", zeros({2})}});
  expect_error(resume_error(), {"BackupAndRestore", probe.path().c_str(), "not a nabla checkpoint"});
  io::save_checkpoint(probe.path(), other, &sgd);
  expect_error(resume_error(), {"BackupAndRestore", probe.path().c_str(), "without training state"});
  io::save_training_state(probe.path(), other, sgd, nullptr, {.epoch = 1});
  expect_error(resume_error(), {"BackupAndRestore", probe.path().c_str(), "not a BackupAndRestore backup"});
  fs::remove_all(dir);
}

TEST(BackupAndRestore, ABackupOfAnotherModelOrOtherCallbacksIsRefused) {
  const std::string dir = temp_dir("mismatch");
  BackupAndRestore probe(dir);
  EXPECT_THROW(small_fit(dir, {.save_freq = 1}, {CrashAt(5)}), std::runtime_error);

  // Another model (other parameter shapes) with the same callbacks.
  auto model = std::make_shared<nn::Sequential>(
      std::vector<nn::ModulePtr>{std::make_shared<nn::Linear>(12, 16), std::make_shared<nn::ReLU>(),
                                 std::make_shared<nn::Dropout>(0.3), std::make_shared<nn::Linear>(16, 4)});
  auto adam = std::make_shared<optim::Adam>(model->parameters());
  Trainer other(model, {.optimizer = adam, .metrics = {"accuracy", "f1"}});
  auto step = std::make_shared<optim::StepLR>(*adam, 5, 0.9);
  const nn::StateDict before = [&] {
    nn::StateDict copy;
    for (const auto& [k, t] : model->state_dict()) copy.insert(k, t.detach().clone());
    return copy;
  }();
  std::string msg = error_of([&] {
    other.fit(randn({40, 12}), zeros({40}, dtype(kInt64)),
              {.epochs = 2,
               .validation_split = 0.25,
               .callbacks = {CrashAt(0), BackupAndRestore(dir, {.save_freq = 1}),
                             LearningRateScheduler(step, LearningRateScheduler::Every::Batch),
                             ReduceLROnPlateau("val_loss"), EarlyStopping()},
               .verbose = 0});
  });
  expect_error(msg, {"BackupAndRestore", probe.path().c_str(), "another model", "'0.weight'", "[32, 12]", "[16, 12]"});
  EXPECT_TRUE(same_weights(model->state_dict(), before)) << "a refused backup changes nothing";

  // Another number of parameters.
  auto linear = std::make_shared<nn::Linear>(12, 4);
  auto linear_adam = std::make_shared<optim::Adam>(linear->parameters());
  Trainer other_linear(linear, {.optimizer = linear_adam, .metrics = {"accuracy", "f1"}});
  auto linear_step = std::make_shared<optim::StepLR>(*linear_adam, 5, 0.9);
  msg = error_of([&] {
    other_linear.fit(randn({40, 12}), zeros({40}, dtype(kInt64)),
                     {.epochs = 2,
                      .validation_split = 0.25,
                      .callbacks = {CrashAt(0), BackupAndRestore(dir, {.save_freq = 1}),
                                    LearningRateScheduler(linear_step, LearningRateScheduler::Every::Batch),
                                    ReduceLROnPlateau("val_loss"), EarlyStopping()},
                      .verbose = 0});
  });
  expect_error(msg, {"BackupAndRestore", probe.path().c_str(), "another model", "'0.weight'"});

  // The same model with a callback fewer.
  msg = error_of([&] {
    other.fit(randn({40, 12}), zeros({40}, dtype(kInt64)),
              {.epochs = 2, .callbacks = {BackupAndRestore(dir, {.save_freq = 1})}, .verbose = 0});
  });
  expect_error(msg, {"BackupAndRestore", probe.path().c_str(), "callbacks"});
  EXPECT_TRUE(fs::exists(probe.path())) << "a refused backup is kept";
  fs::remove_all(dir);
}

// Keras's function form sets the lr at each epoch's start: a run resumed mid-epoch
// must not apply it twice (the saved optimizer state replaces what it did).
TEST(BackupAndRestore, AFunctionScheduleIsNotAppliedTwiceWhenResumingMidEpoch) {
  const std::string dir = temp_dir("halving");
  auto run = [&](int64_t crash_at) {
    auto [x, y] = testing::linear_problem(60, 3);
    Trainer t = testing::linear_trainer(0.5);
    History h = t.fit(x, y,
                      {.epochs = 3,
                       .batch_size = 8,
                       .callbacks = {CrashAt(crash_at), LearningRateScheduler([](int, double lr) { return lr / 2; }),
                                     BackupAndRestore(dir, {.save_freq = 1})},
                       .verbose = 0});
    return SmallFit{h, t.model().state_dict()};
  };
  const SmallFit reference = run(0);
  EXPECT_THROW(run(12), std::runtime_error);  // epoch 1, its 4th batch
  expect_same_run(run(0), reference, "crash at 12");
  EXPECT_EQ(reference.history["lr"], (std::vector<double>{0.25, 0.125, 0.0625}));
}

TEST(BackupAndRestore, TheBuiltInCallbacksStateRoundTrips) {
  auto [x, y] = testing::linear_problem(40);
  Trainer t = testing::linear_trainer();
  const std::string dir = temp_dir("ckpt");
  auto checkpoint = std::make_shared<ModelCheckpoint>(dir + "/best.safetensors",
                                                      CheckpointOptions{.monitor = "loss", .save_best_only = true});
  auto stop = std::make_shared<EarlyStopping>(EarlyStoppingOptions{.monitor = "loss", .restore_best_weights = true});
  t.fit(x, y, {.epochs = 2, .batch_size = 10, .callbacks = {checkpoint, stop}, .verbose = 0});
  ModelCheckpoint checkpoint2("unused.safetensors", {.monitor = "loss", .save_best_only = true});
  checkpoint2.load_state_dict(checkpoint->state_dict());
  EXPECT_EQ(checkpoint2.best(), checkpoint->best());
  EarlyStopping stop2({.monitor = "loss", .restore_best_weights = true});
  stop2.load_state_dict(stop->state_dict());
  EXPECT_EQ(stop2.best(), stop->best());
  EXPECT_EQ(stop2.best_epoch(), stop->best_epoch());
  EXPECT_EQ(stop2.state_dict().keys(), stop->state_dict().keys());  // the best weights too
  EarlyStopping no_weights({.monitor = "loss"});
  expect_error(error_of([&] { no_weights.load_state_dict(stop->state_dict()); }),
               {"EarlyStopping", "best weights", "restore_best_weights"});
  expect_error(error_of([&] { stop2.load_state_dict({}); }), {"EarlyStopping", "no entry 'best'"});
  LearningRateScheduler function([](int, double lr) { return lr; });
  expect_error(error_of([&] { function.load_state_dict(stop->state_dict()); }),
               {"LearningRateScheduler", "schedule function"});
  fs::remove_all(dir);
}

// A metric without state_dict: backups at epoch ends work, mid-epoch ones say why not.
class PlainMetric : public Metric {
 public:
  std::string name() const override { return "plain"; }
  void reset() override {}
  void update(const Tensor&, const Tensor&) override {}
  double result() const override { return 0; }
};

TEST(BackupAndRestore, AMetricWithoutStateCanOnlyBeBackedUpAtEpochEnds) {
  const std::string dir = temp_dir("metric");
  EXPECT_NO_THROW(small_fit(dir, {}, {}, {std::make_shared<PlainMetric>()}));
  std::string msg = error_of([&] { small_fit(dir, {.save_freq = 2}, {}, {std::make_shared<PlainMetric>()}); });
  expect_error(msg, {"Metric 'plain'", "state_dict", "BackupAndRestore"});
  fs::remove_all(dir);
}

TEST(BackupAndRestore, OptionsAreChecked) {
  expect_error(error_of([] { BackupAndRestore(""); }), {"BackupAndRestore", "backup_dir"});
  expect_error(error_of([] { BackupAndRestore("x", {.save_freq = -1}); }), {"BackupAndRestore", "save_freq", "-1"});
}

}  // namespace
}  // namespace nabla::train

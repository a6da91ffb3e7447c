// Corrupted-file sweep of checkpoints (issue 13, acceptance 2): 300 seeded
// mutants each through load_checkpoint (a model with a BatchNorm, whose
// int64 buffer must stay int64, and an Adam optimizer after two steps),
// restore_training_state (model, optimizer, StepLR schedule, generator) and
// read_training_state, of one file written by save_training_state.
// A checkpoint is a safetensors file without a checksum, so a changed weight
// byte or learning rate loads as a different value and is counted. What it
// says twice must agree: a changed dtype (the model's), shape, data offset,
// header length or parameter-group count must be refused, and a refusal must
// leave the model, optimizer, schedule and generator as they were.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>

#include "nabla/nabla.h"
#include "tests/support/sweep.h"
#include "tests/support/sweep_formats.h"

namespace nabla::io {
namespace {

using namespace nabla::testing;

std::shared_ptr<nn::Sequential> make_model() {
  return std::make_shared<nn::Sequential>(nn::Linear(3, 4), nn::BatchNorm1d(4), nn::ReLU(), nn::Linear(4, 2));
}

std::unique_ptr<optim::Adam> make_adam(nn::Module& m) {
  return std::make_unique<optim::Adam>(m.parameters(), optim::Options{{"lr", 0.01}});
}

std::string describe(const nn::Module& m) { return describe_all(m.state_dict()); }

std::string describe(const optim::Optimizer& o) {
  const optim::OptimizerStateDict sd = o.state_dict();
  std::string out;
  for (const optim::Options& g : sd.groups)
    for (const auto& [k, v] : g) out += k + "=" + std::to_string(v) + ";";
  for (const auto& group : sd.state)
    for (const optim::ParamState& s : group) out += "step " + std::to_string(s.step) + ";" + describe_all(s.buffers);
  return out;
}

std::string describe(const optim::LRScheduler& s) {
  const optim::LRSchedulerState st = s.state_dict();
  std::string out = std::to_string(st.last_epoch) + "," + std::to_string(st.step_count);
  for (double v : st.base_lrs) out += "," + std::to_string(v);
  for (double v : st.last_lr) out += "," + std::to_string(v);
  return out;
}

std::string describe(const TrainingState& s) {
  std::string out = std::to_string(s.epoch) + "," + std::to_string(s.step) + "," + std::to_string(s.rng.seed) + "," +
                    std::to_string(s.rng.offset) + "," + std::to_string(s.has_scheduler) + ";";
  for (const auto& [k, v] : s.info) out += k + ":" + v + ";";
  return out;
}

// Live objects restored into, and the state they had before each load.
struct Target {
  std::shared_ptr<nn::Sequential> model = make_model();
  std::unique_ptr<optim::Adam> adam = make_adam(*model);
  std::unique_ptr<optim::StepLR> schedule = std::make_unique<optim::StepLR>(*adam, 2, 0.5);
  nn::StateDict initial;
  std::string before;
  GeneratorState rng;

  Target() {
    for (const auto& [k, t] : model->state_dict()) initial.insert(k, t.clone());
    rng = default_generator().get_state();
    before = now();
  }
  std::string now() const {
    return describe(*model) + "|" + describe(*adam) + "|" + describe(*schedule) + "|" +
           std::to_string(default_generator().get_state().offset);
  }
  // Back to the state before the first load (a fresh optimizer and schedule).
  void reset() {
    model->load_state_dict(initial);
    adam = make_adam(*model);
    schedule = std::make_unique<optim::StepLR>(*adam, 2, 0.5);
    default_generator().set_state(rng);
  }
};

class CheckpointSweep : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = sweep_dir("checkpoint");
    manual_seed(13);
    auto model = make_model();
    auto adam = make_adam(*model);
    optim::StepLR schedule(*adam, 2, 0.5);
    for (int i = 0; i < 2; ++i) {
      Tensor loss = sum(pow((*model)(randn({5, 3})), 2));
      adam->zero_grad();
      loss.backward();
      adam->step();
      schedule.step();
    }
    save_training_state(dir_ + "/good.safetensors", *model, *adam, &schedule,
                        {.epoch = 2, .step = 2, .info = {{"best_accuracy", "0.75"}}});
    good_ = file_bytes(dir_ + "/good.safetensors");
    manual_seed(99);  // the generator a refused restore must leave alone
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  MutatorSpec spec(bool with_schedule) const {
    MutatorSpec s;
    s.fields = safetensors_fields(good_, /*dtype_redundant=*/true, [&](const std::string& key) {
      return key == "optimizer.groups" || key == "optimizer.group.0.params" ||
             (with_schedule && key == "training.scheduler.groups");
    });
    s.repair = safetensors_repair(good_);
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(good_[static_cast<std::size_t>(i)]);
    s.header_end = 8 + n;
    s.length_is_declared = true;
    return s;
  }

  std::string dir_, good_;
};

TEST_F(CheckpointSweep, LoadCheckpoint) {
  Target t;
  SweepCase c{"load_checkpoint", "load_checkpoint", dir_ + "/mutant.safetensors", /*checked=*/false,
              [&](const std::string& path) {
                t.reset();
                Metadata user = load_checkpoint(path, *t.model, t.adam.get());
                std::string out = describe(*t.model) + "|" + describe(*t.adam) + "|";
                for (const auto& [k, v] : user) out += k + ":" + v + ";";
                return out;
              },
              [&](const Mutant& m) { EXPECT_EQ(t.now(), t.before) << "a refused load changed something: " << m.what; }};
  EXPECT_GT(run_sweep(c, good_, make_mutants(good_, spec(false), 1311, mutant_count(300))).refused, 150);
}

TEST_F(CheckpointSweep, RestoreTrainingState) {
  Target t;
  SweepCase c{"restore_training_state", "restore_training_state", dir_ + "/mutant.safetensors", /*checked=*/false,
              [&](const std::string& path) {
                t.reset();
                const TrainingState s = restore_training_state(path, *t.model, *t.adam, t.schedule.get());
                return describe(s) + "|" + t.now();
              },
              [&](const Mutant& m) { EXPECT_EQ(t.now(), t.before) << "a refused restore changed something: " << m.what; }};
  EXPECT_GT(run_sweep(c, good_, make_mutants(good_, spec(true), 1312, mutant_count(300))).refused, 150);
}

TEST_F(CheckpointSweep, ReadTrainingState) {
  MutatorSpec s = spec(false);
  // No model or optimizer to check against: only the file's own consistency.
  for (Field& f : s.fields)
    f.redundant = f.redundant && (f.name.rfind("shape", 0) == 0 || f.name.rfind("data_offsets", 0) == 0 ||
                                  f.name == "header length");
  SweepCase c{"read_training_state", "read_training_state", dir_ + "/mutant.safetensors", /*checked=*/false,
              [](const std::string& path) { return describe(read_training_state(path)); }, {}};
  EXPECT_GT(run_sweep(c, good_, make_mutants(good_, s, 1313, mutant_count(300))).refused, 100);
}

}  // namespace
}  // namespace nabla::io

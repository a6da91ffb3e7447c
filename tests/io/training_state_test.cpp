// Resumable training state (nabla/io/training_state.h) and the pieces it is
// made of: the global generator's get_state/set_state, the LR schedulers'
// state_dict, and optimizer state_dicts, each of which must round-trip to the
// bit so that a resumed run takes exactly the uninterrupted run's steps.
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <filesystem>
#include <functional>

#include "nabla/nabla.h"
#include "tests/support/error_message.h"
#include "tests/support/temp_files.h"

namespace nabla::io {
namespace {

namespace fs = std::filesystem;
using nabla::testing::error_of;
using nabla::testing::expect_error;
using nabla::testing::temp_path_in;

// The bits of a float32 tensor.
std::vector<uint32_t> bits(const Tensor& t) {
  std::vector<uint32_t> out;
  for (float v : t.contiguous().to_vector<float>()) out.push_back(std::bit_cast<uint32_t>(v));
  return out;
}

std::vector<std::vector<uint32_t>> all_bits(const std::vector<Tensor>& ts) {
  std::vector<std::vector<uint32_t>> out;
  for (const Tensor& t : ts) out.push_back(bits(t));
  return out;
}

// A model with dropout, so that its steps draw from the global generator.
std::shared_ptr<nn::Sequential> make_dropout_net(uint64_t seed) {
  manual_seed(seed);
  return std::make_shared<nn::Sequential>(nn::Linear(4, 16), nn::ReLU(), nn::Dropout(0.3), nn::Linear(16, 3));
}

// One step on a fresh random batch (randn and dropout both draw from the
// global generator); returns the loss.
float train_step(nn::Module& model, optim::Optimizer& opt, optim::LRScheduler* sched) {
  Tensor x = randn({8, 4});
  Tensor y = tensor(std::vector<int64_t>{0, 1, 2, 0, 1, 2, 0, 1});
  Tensor loss = cross_entropy(model(x), y);
  opt.zero_grad();
  loss.backward();
  opt.step();
  if (sched) sched->step();
  return loss.item<float>();
}

using MakeOptimizer = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)>;
using MakeScheduler = std::function<std::unique_ptr<optim::LRScheduler>(optim::Optimizer&)>;

std::vector<std::pair<const char*, MakeOptimizer>> optimizers() {
  using optim::Options;
  return {
      {"SGD", [](auto p) { return std::make_unique<optim::SGD>(p, Options{{"lr", 0.1}, {"momentum", 0.9}}); }},
      {"Adam", [](auto p) { return std::make_unique<optim::Adam>(p, Options{{"lr", 0.01}}); }},
      {"AdamW", [](auto p) { return std::make_unique<optim::AdamW>(p, Options{{"lr", 0.01}, {"amsgrad", 1}}); }},
      {"RMSprop",
       [](auto p) {
         return std::make_unique<optim::RMSprop>(p, Options{{"lr", 0.01}, {"centered", 1}, {"momentum", 0.5}});
       }},
      {"Adagrad", [](auto p) { return std::make_unique<optim::Adagrad>(p, Options{{"lr", 0.1}}); }},
  };
}

std::vector<std::pair<const char*, MakeScheduler>> schedulers() {
  return {
      {"StepLR", [](auto& o) { return std::make_unique<optim::StepLR>(o, 3, 0.5); }},
      {"MultiStepLR", [](auto& o) { return std::make_unique<optim::MultiStepLR>(o, std::vector<int64_t>{2, 5}); }},
      {"ExponentialLR", [](auto& o) { return std::make_unique<optim::ExponentialLR>(o, 0.9); }},
      {"CosineAnnealingLR", [](auto& o) { return std::make_unique<optim::CosineAnnealingLR>(o, 7, 1e-4); }},
      {"LinearLR", [](auto& o) { return std::make_unique<optim::LinearLR>(o, 0.25, 1.0, 4); }},
      {"OneCycleLR",
       [](auto& o) {
         // It moves the momentum too, where the optimizer has one (Adagrad has none).
         bool momentum = o.defaults().count("momentum") || o.defaults().count("beta1");
         return std::make_unique<optim::OneCycleLR>(
             o, 0.05, optim::OneCycleOptions{.total_steps = 12, .cycle_momentum = momentum});
       }},
  };
}

TEST(GeneratorState, RestoringTheStateRepeatsTheDraws) {
  manual_seed(7);
  randn({5});
  GeneratorState s = default_generator().get_state();
  EXPECT_EQ(s.seed, 7u);
  EXPECT_GT(s.offset, 0u);
  std::vector<uint32_t> first = bits(randn({33}));
  std::vector<uint32_t> mask = bits(dropout(ones({40}), 0.5, true));
  manual_seed(99);
  randn({3});
  default_generator().set_state(s);
  EXPECT_EQ(bits(randn({33})), first);
  EXPECT_EQ(bits(dropout(ones({40}), 0.5, true)), mask);
}

// Each optimizer with each scheduler: after 5 steps, a second model,
// optimizer and scheduler built differently take the first's state dicts (in
// memory) and the generator state; 6 more steps then give the same bits.
TEST(TrainingState, OptimizerAndSchedulerStateDictsRoundTripBitForBit) {
  for (const auto& [opt_name, make_opt] : optimizers())
    for (const auto& [sched_name, make_sched] : schedulers()) {
      SCOPED_TRACE(std::string(opt_name) + " + " + sched_name);
      auto a = make_dropout_net(1);
      auto opt_a = make_opt(a->parameters());
      auto sched_a = make_sched(*opt_a);
      for (int i = 0; i < 5; ++i) train_step(*a, *opt_a, sched_a.get());

      auto b = make_dropout_net(2);
      auto opt_b = make_opt(b->parameters());
      auto sched_b = make_sched(*opt_b);
      train_step(*b, *opt_b, sched_b.get());  // state that the load must replace
      b->load_state_dict(a->state_dict());
      opt_b->load_state_dict(opt_a->state_dict());
      sched_b->load_state_dict(sched_a->state_dict());
      EXPECT_EQ(sched_b->last_epoch(), sched_a->last_epoch());
      EXPECT_EQ(sched_b->get_last_lr(), sched_a->get_last_lr());

      GeneratorState rng = default_generator().get_state();
      std::vector<float> losses_a, losses_b;
      for (int i = 0; i < 6; ++i) losses_a.push_back(train_step(*a, *opt_a, sched_a.get()));
      default_generator().set_state(rng);
      for (int i = 0; i < 6; ++i) losses_b.push_back(train_step(*b, *opt_b, sched_b.get()));
      EXPECT_EQ(losses_a, losses_b);
      EXPECT_EQ(all_bits(a->parameters()), all_bits(b->parameters()));
      EXPECT_EQ(sched_b->get_last_lr(), sched_a->get_last_lr());
      ASSERT_EQ(opt_a->param_groups()[0].options, opt_b->param_groups()[0].options);
      for (std::size_t i = 0; i < a->parameters().size(); ++i) {
        EXPECT_EQ(opt_a->state(0, i).step, opt_b->state(0, i).step);
        for (const auto& [name, buf] : opt_a->state(0, i).buffers)
          EXPECT_EQ(bits(buf), bits(opt_b->state(0, i).buffers.at(name))) << name;
      }
    }
}

// The same through a file: save after 4 steps, keep training; a "new process"
// (another seed, fresh objects) restores and takes the same next steps.
TEST(TrainingState, RestoredRunContinuesBitIdentically) {
  const std::string path = temp_path_in("nabla_training_state_test", "state.safetensors");
  auto a = make_dropout_net(3);
  optim::Adam opt_a(a->parameters(), {{"lr", 0.01}});
  optim::CosineAnnealingLR sched_a(opt_a, 20);
  for (int i = 0; i < 4; ++i) train_step(*a, opt_a, &sched_a);
  save_training_state(path, *a, opt_a, &sched_a, {.epoch = 2, .step = 4, .info = {{"best", "0.5"}}});
  std::vector<float> losses_a;
  for (int i = 0; i < 5; ++i) losses_a.push_back(train_step(*a, opt_a, &sched_a));

  TrainingState peek = read_training_state(path);
  EXPECT_EQ(peek.epoch, 2);
  EXPECT_EQ(peek.step, 4);
  EXPECT_TRUE(peek.has_scheduler);
  EXPECT_EQ(peek.info, (Metadata{{"best", "0.5"}}));

  auto b = make_dropout_net(4);
  optim::Adam opt_b(b->parameters(), {{"lr", 0.01}});
  optim::CosineAnnealingLR sched_b(opt_b, 20);
  TrainingState s = restore_training_state(path, *b, opt_b, &sched_b);
  EXPECT_EQ(s.epoch, 2);
  EXPECT_EQ(s.step, 4);
  EXPECT_EQ(s.rng, peek.rng);
  EXPECT_EQ(default_generator().get_state(), peek.rng);
  EXPECT_EQ(sched_b.last_epoch(), 4);
  std::vector<float> losses_b;
  for (int i = 0; i < 5; ++i) losses_b.push_back(train_step(*b, opt_b, &sched_b));
  EXPECT_EQ(losses_a, losses_b);
  EXPECT_EQ(all_bits(a->parameters()), all_bits(b->parameters()));
  EXPECT_EQ(opt_a.param_groups()[0].lr(), opt_b.param_groups()[0].lr());
  EXPECT_EQ(sched_a.get_last_lr(), sched_b.get_last_lr());
}

TEST(TrainingState, TheCallersTensorsRoundTripAndLoadCheckpointSkipsThem) {
  const std::string path = temp_path_in("nabla_training_state_test", "tensors.safetensors");
  auto a = make_dropout_net(5);
  optim::SGD opt(a->parameters(), {{"lr", 0.1}});
  TrainingState s;
  s.epoch = 2;
  s.tensors = {{"callback.0.best", tensor(std::vector<double>{0.25}, IntList{})},
               {"metric.1.counts", tensor(std::vector<int64_t>{1, 2, 3, 4}, {2, 2})}};
  save_training_state(path, *a, opt, nullptr, s);
  TrainingState back = read_training_state(path);
  ASSERT_EQ(back.tensors.size(), 2u);
  ASSERT_TRUE(back.tensors.contains("callback.0.best") && back.tensors.contains("metric.1.counts"));
  EXPECT_TRUE(equal(back.tensors.at("callback.0.best"), s.tensors.at("callback.0.best")));
  EXPECT_TRUE(equal(back.tensors.at("metric.1.counts"), s.tensors.at("metric.1.counts")));
  EXPECT_TRUE(back.info.empty());
  EXPECT_EQ(restore_training_state(path, *a, opt, nullptr).tensors.size(), 2u);
  EXPECT_NO_THROW(load_checkpoint(path, *a, &opt));  // a training state is still a checkpoint
}

TEST(TrainingState, RefusesMismatchesWithoutChangingAnything) {
  const std::string path = temp_path_in("nabla_training_state_test", "refuse.safetensors");
  auto a = make_dropout_net(5);
  optim::SGD opt_a(a->parameters(), {{"lr", 0.1}});
  optim::StepLR sched_a(opt_a, 2);
  train_step(*a, opt_a, &sched_a);
  save_training_state(path, *a, opt_a, &sched_a, {.epoch = 1, .step = 1});

  auto b = make_dropout_net(6);
  optim::SGD opt_b(b->parameters(), {{"lr", 0.1}});
  const auto before = all_bits(b->parameters());
  const GeneratorState rng = default_generator().get_state();
  expect_error(error_of([&] { restore_training_state(path, *b, opt_b, nullptr); }),
               {"restore_training_state", path.c_str(), "scheduler", "no scheduler was given"});
  EXPECT_EQ(all_bits(b->parameters()), before);
  EXPECT_EQ(default_generator().get_state(), rng);

  // Another optimizer kind: load_checkpoint's check, before anything changes.
  optim::Adam adam(b->parameters(), {{"lr", 0.1}});
  optim::StepLR sched_b(adam, 2);
  expect_error(error_of([&] { restore_training_state(path, *b, adam, &sched_b); }), {path.c_str(), "SGD", "Adam"});
  EXPECT_EQ(sched_b.last_epoch(), 0);
  EXPECT_EQ(all_bits(b->parameters()), before);
  EXPECT_EQ(default_generator().get_state(), rng);

  // Saved without a scheduler, restored with one.
  const std::string plain = temp_path_in("nabla_training_state_test", "no_sched.safetensors");
  save_training_state(plain, *a, opt_a, nullptr, {.epoch = 1, .step = 1});
  optim::StepLR sched_c(opt_b, 2);
  expect_error(error_of([&] { restore_training_state(plain, *b, opt_b, &sched_c); }),
               {plain.c_str(), "no learning-rate scheduler state"});

  // A checkpoint without training state, and a malformed entry.
  const std::string ckpt = temp_path_in("nabla_training_state_test", "ckpt.safetensors");
  save_checkpoint(ckpt, *a, &opt_a);
  expect_error(error_of([&] { read_training_state(ckpt); }),
               {"read_training_state", ckpt.c_str(), "without training state", "training.epoch"});
  Metadata meta;
  TensorDict tensors = load_safetensors(plain, &meta);
  meta["training.step"] = "-3";
  save_safetensors(plain, tensors, meta);
  expect_error(error_of([&] { restore_training_state(plain, *b, opt_b, nullptr); }),
               {"restore_training_state", plain.c_str(), "'training.step'", "'-3'"});
  EXPECT_EQ(all_bits(b->parameters()), before);

  // The scheduler's own check: another group count.
  optim::LRSchedulerState st = sched_a.state_dict();
  st.base_lrs.push_back(1.0);
  expect_error(error_of([&] { sched_a.load_state_dict(st); }),
               {"LRScheduler::load_state_dict", "2 base_lrs", "one per parameter group (1)"});

  expect_error(error_of([&] { save_training_state(path, *a, opt_a, nullptr, {.info = {{"training.x", "1"}}}); }),
               {"save_training_state", "'training.x'", "reserved"});
  fs::remove_all(fs::path(path).parent_path());
}

}  // namespace
}  // namespace nabla::io

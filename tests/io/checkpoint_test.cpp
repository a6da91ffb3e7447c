// Model + optimizer checkpoints (nabla/io/checkpoint.h): round trips of every
// optimizer's state, training that resumes from a checkpoint exactly as if it
// had never stopped, and files that must be refused (not a checkpoint, another
// optimizer, wrong shapes, malformed or truncated) without changing anything.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "nabla/nabla.h"
#include "tests/support/error_message.h"
#include "tests/support/temp_files.h"
#include "tests/support/tensor_values.h"

namespace nabla::io {
namespace {

namespace fs = std::filesystem;
using nabla::testing::double_values;
using nabla::testing::temp_path_in;

std::shared_ptr<nn::Sequential> make_net(uint64_t seed) {
  manual_seed(seed);
  return std::make_shared<nn::Sequential>(nn::Linear(4, 8), nn::Tanh(), nn::Linear(8, 3));
}

using MakeOptimizer = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)>;

struct OptimizerCase {
  const char* name;
  MakeOptimizer make;
};

std::vector<OptimizerCase> optimizer_cases() {
  using optim::Options;
  return {
      {"SGD",
       [](auto p) {
         return std::make_unique<optim::SGD>(p, Options{{"lr", 0.1}, {"momentum", 0.9}});
       }},
      {"Adam",
       [](auto p) {
         return std::make_unique<optim::Adam>(p, Options{{"lr", 0.01}});
       }},
      {"AdamW",
       [](auto p) {
         return std::make_unique<optim::AdamW>(p, Options{{"lr", 0.01}, {"amsgrad", 1}});
       }},
      {"RMSprop",
       [](auto p) {
         return std::make_unique<optim::RMSprop>(p, Options{{"lr", 0.01}, {"centered", 1}, {"momentum", 0.5}});
       }},
      {"Adagrad",
       [](auto p) {
         return std::make_unique<optim::Adagrad>(p, Options{{"lr", 0.1}});
       }},
  };
}

// One step on a fixed batch; returns the loss before the step.
float train_step(nn::Module& model, optim::Optimizer& opt) {
  static const Tensor x = [] {
    manual_seed(123);
    return randn({16, 4});
  }();
  static const Tensor y = tensor(std::vector<int64_t>{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0});
  Tensor loss = cross_entropy(model(x), y);
  opt.zero_grad();
  loss.backward();
  opt.step();
  return loss.item<float>();
}

// One step of a 2 -> 2 linear model on a fixed batch.
void train_step_2d(nn::Module& model, optim::Optimizer& opt) {
  Tensor loss = cross_entropy(model(tensor({{1.0, -1.0}, {0.5, 2.0}})), tensor(std::vector<int64_t>{0, 1}));
  opt.zero_grad();
  loss.backward();
  opt.step();
}

class CheckpointOptimizers : public ::testing::TestWithParam<int> {};

TEST_P(CheckpointOptimizers, TrainingResumesExactlyAsIfUninterrupted) {
  OptimizerCase c = optimizer_cases()[static_cast<std::size_t>(GetParam())];
  SCOPED_TRACE(c.name);
  auto a = make_net(1);
  auto opt_a = c.make(a->parameters());
  for (int i = 0; i < 3; ++i) train_step(*a, *opt_a);
  const std::string path = temp_path_in("nabla_ckpt_test", std::string(c.name) + ".safetensors");
  save_checkpoint(path, *a, opt_a.get(), {{"epoch", "3"}});
  std::vector<float> uninterrupted;
  for (int i = 0; i < 4; ++i) uninterrupted.push_back(train_step(*a, *opt_a));

  auto b = make_net(99);  // different initial weights: all must come from the file
  auto opt_b = c.make(b->parameters());
  Metadata meta = load_checkpoint(path, *b, opt_b.get());
  EXPECT_EQ(meta, (Metadata{{"epoch", "3"}}));
  EXPECT_EQ(opt_b->state(0, 0).step, 3);
  std::vector<float> resumed;
  for (int i = 0; i < 4; ++i) resumed.push_back(train_step(*b, *opt_b));
  EXPECT_EQ(resumed, uninterrupted);  // bit for bit
  auto pa = a->parameters(), pb = b->parameters();
  for (std::size_t i = 0; i < pa.size(); ++i) EXPECT_EQ(double_values(pa[i]), double_values(pb[i])) << i;
}

INSTANTIATE_TEST_SUITE_P(All, CheckpointOptimizers, ::testing::Range(0, 5),
                         [](const auto& info) { return std::string(optimizer_cases()[info.param].name); });

TEST(Checkpoint, RoundTripsModelAndAdamStateAndHyperParameters) {
  auto a = make_net(1);
  optim::Adam opt_a(a->parameters(), {{"lr", 0.003}, {"beta2", 0.98}, {"weight_decay", 0.1}});
  for (int i = 0; i < 2; ++i) train_step(*a, opt_a);
  optim::StepLR schedule(opt_a, 10);        // adds "initial_lr" to the group, as in PyTorch
  opt_a.param_groups()[0].set_lr(1.0 / 3);  // as a scheduler would: needs all 17 digits
  const std::string path = temp_path_in("nabla_ckpt_test", "adam.safetensors");
  save_checkpoint(path, *a, &opt_a);

  // The file is plain safetensors: names and metadata as documented.
  Metadata meta;
  TensorDict raw = load_safetensors(path, &meta);
  EXPECT_EQ(meta.at("nabla.checkpoint"), "1");
  EXPECT_EQ(meta.at("optimizer"), "Adam");
  EXPECT_EQ(meta.at("optimizer.groups"), "1");
  EXPECT_EQ(meta.at("optimizer.group.0.params"), "4");
  EXPECT_EQ(meta.at("optimizer.group.0.beta2"), "0.97999999999999998");
  EXPECT_EQ(meta.at("optimizer.state.0.3.step"), "2");
  EXPECT_EQ(double_values(get(raw, "model.0.weight")), double_values(a->parameters()[0]));
  EXPECT_EQ(double_values(get(raw, "optimizer.state.0.1.exp_avg")),
            double_values(opt_a.state(0, 1).buffers.at("exp_avg")));

  auto b = make_net(2);
  optim::Adam opt_b(b->parameters());
  load_checkpoint(path, *b, &opt_b);
  EXPECT_EQ(opt_b.param_groups()[0].options, opt_a.param_groups()[0].options);
  EXPECT_EQ(opt_b.param_groups()[0].lr(), 1.0 / 3);
  EXPECT_EQ(opt_b.param_groups()[0].get("initial_lr"), 0.003);  // extra keys (from a scheduler) round trip too
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(opt_b.state(0, i).step, 2);
    for (const char* k : {"exp_avg", "exp_avg_sq"})
      EXPECT_EQ(double_values(opt_b.state(0, i).buffers.at(k)), double_values(opt_a.state(0, i).buffers.at(k))) << k;
  }
  // A model alone (evaluation) loads from the same file.
  auto c = make_net(3);
  load_checkpoint(path, *c);
  EXPECT_EQ(double_values(c->parameters()[2]), double_values(a->parameters()[2]));
}

TEST(Checkpoint, ModelWithoutOptimizerAndFreshOptimizerState) {
  auto a = make_net(1);
  optim::SGD opt(a->parameters(), {{"lr", 0.1}});  // no momentum: SGD keeps no state
  const std::string path = temp_path_in("nabla_ckpt_test", "fresh.safetensors");
  save_checkpoint(path, *a, &opt);
  auto b = make_net(2);
  optim::SGD opt_b(b->parameters(), {{"lr", 0.5}});
  load_checkpoint(path, *b, &opt_b);
  EXPECT_EQ(opt_b.param_groups()[0].lr(), 0.1);
  EXPECT_EQ(opt_b.state(0, 0).step, 0);

  save_checkpoint(path, *a);  // model only
  EXPECT_THROW(load_checkpoint(path, *b, &opt_b), Error);
  load_checkpoint(path, *b);
  EXPECT_EQ(double_values(b->parameters()[0]), double_values(a->parameters()[0]));
}

using nabla::testing::error_of;

TEST(Checkpoint, RefusesBadFilesWithoutChangingTheModelOrOptimizer) {
  auto a = make_net(1);
  optim::Adam opt_a(a->parameters());
  train_step(*a, opt_a);
  const std::string good = temp_path_in("nabla_ckpt_test", "good.safetensors");
  save_checkpoint(good, *a, &opt_a);
  Metadata meta;
  TensorDict tensors = load_safetensors(good, &meta);

  auto b = make_net(2);
  optim::Adam opt_b(b->parameters());
  const std::vector<double> before = double_values(b->parameters()[0]);
  auto refused = [&](const std::string& name, const TensorDict& t, const Metadata& m) {
    std::string path = temp_path_in("nabla_ckpt_test", name + ".safetensors");
    save_safetensors(path, t, m);
    return error_of([&] { load_checkpoint(path, *b, &opt_b); });
  };

  Metadata no_format = meta;
  no_format.erase("nabla.checkpoint");
  EXPECT_NE(refused("noformat", tensors, no_format).find("not a nabla checkpoint"), std::string::npos);
  Metadata v2 = meta;
  v2["nabla.checkpoint"] = "2";
  EXPECT_NE(refused("v2", tensors, v2).find("format version '2', expected '1'"), std::string::npos);
  Metadata bad_lr = meta;
  bad_lr["optimizer.group.0.lr"] = "0.001x";
  EXPECT_NE(refused("badlr", tensors, bad_lr).find("'optimizer.group.0.lr' is '0.001x', expected a number"),
            std::string::npos);
  Metadata missing_key = meta;
  missing_key.erase("optimizer.group.0.beta2");
  EXPECT_NE(refused("missing", tensors, missing_key).find("no metadata entry 'optimizer.group.0.beta2'"),
            std::string::npos);
  Metadata no_step = meta;
  no_step.erase("optimizer.state.0.2.step");
  EXPECT_NE(refused("nostep", tensors, no_step).find("no step count"), std::string::npos);

  TensorDict renamed = tensors;
  renamed[0].first = "weights.0";
  EXPECT_NE(refused("renamed", renamed, meta).find("unexpected tensor 'weights.0'"), std::string::npos);
  TensorDict stray = tensors;
  stray.emplace_back("optimizer.state.0.9.exp_avg", zeros({3}));
  EXPECT_NE(refused("stray", stray, meta).find("belongs to no parameter"), std::string::npos);
  TensorDict wrong_shape = tensors;
  for (auto& [n, t] : wrong_shape)
    if (n == "model.2.bias") t = zeros({4});
  EXPECT_NE(refused("shape", wrong_shape, meta).find("2.bias"), std::string::npos);

  // Another optimizer kind, another architecture.
  optim::SGD sgd(b->parameters(), {{"lr", 0.1}});
  EXPECT_NE(
      error_of([&] { load_checkpoint(good, *b, &sgd); }).find("holds the state of a Adam optimizer, expected SGD"),
      std::string::npos);
  nn::Sequential other(nn::Linear(4, 3));
  EXPECT_THROW(load_checkpoint(good, other), Error);

  // Truncated bytes: the safetensors reader refuses them.
  std::string bytes;
  {
    std::ifstream in(good, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const std::string cut = temp_path_in("nabla_ckpt_test", "cut.safetensors");
  std::ofstream(cut, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size() - 10));
  EXPECT_THROW(load_checkpoint(cut, *b, &opt_b), Error);
  EXPECT_THROW(load_checkpoint(temp_path_in("nabla_ckpt_test", "absent.safetensors"), *b), Error);

  EXPECT_EQ(double_values(b->parameters()[0]), before);  // nothing was changed by any refusal
  EXPECT_EQ(opt_b.state(0, 0).step, 0);
}

// Every single-byte corruption of a checkpoint (header or data) either loads
// (a flipped weight: safetensors has no checksum) or raises nabla::Error, and
// a refused file leaves the optimizer untouched.
TEST(Checkpoint, EveryByteFlipLoadsOrRaisesError) {
  manual_seed(5);
  nn::Sequential a(nn::Linear(2, 2));
  optim::Adam opt_a(a.parameters());
  train_step_2d(a, opt_a);
  const std::string good = temp_path_in("nabla_ckpt_test", "flip_src.safetensors"),
                    path = temp_path_in("nabla_ckpt_test", "flip.safetensors");
  save_checkpoint(good, a, &opt_a);
  std::string bytes;
  {
    std::ifstream in(good, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  int refused = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::string b = bytes;
    b[i] = static_cast<char>(b[i] ^ 0x5A);
    std::ofstream(path, std::ios::binary).write(b.data(), static_cast<std::streamsize>(b.size()));
    nn::Sequential m(nn::Linear(2, 2));
    optim::Adam opt(m.parameters());
    try {
      load_checkpoint(path, m, &opt);
    } catch (const Error&) {
      ++refused;
      EXPECT_EQ(opt.state(0, 0).step, 0) << "byte " << i;
    }
  }
  EXPECT_GT(refused, static_cast<int>(bytes.size()) / 2);
}

// A float weight stored as I32 used to load as weights around 1e9 (cast);
// now every dtype mismatch, model or optimizer, names the file, the entry and
// both dtypes, and changes nothing.
TEST(Checkpoint, RefusesEntriesOfAnotherDtype) {
  auto a = make_net(1);
  optim::Adam opt_a(a->parameters());
  train_step(*a, opt_a);
  const std::string good = temp_path_in("nabla_ckpt_test", "dtype_src.safetensors");
  save_checkpoint(good, *a, &opt_a);
  Metadata meta;
  TensorDict tensors = load_safetensors(good, &meta);
  auto b = make_net(2);
  optim::Adam opt_b(b->parameters());
  const std::vector<double> before = double_values(b->parameters()[0]);
  auto refused = [&](const std::string& name, const std::string& entry, DType dtype) {
    TensorDict t = tensors;
    bool found = false;
    for (auto& [n, v] : t)
      if (n == entry) v = (v * 1e6).to(dtype), found = true;
    EXPECT_TRUE(found) << entry;
    std::string path = temp_path_in("nabla_ckpt_test", name + ".safetensors");
    save_safetensors(path, t, meta);
    return std::make_pair(path, error_of([&] { load_checkpoint(path, *b, &opt_b); }));
  };
  auto [p1, m1] = refused("i32", "model.0.weight", kInt32);
  nabla::testing::expect_error(
      m1, {"load_checkpoint", p1.c_str(), "'model.0.weight'", "stored as int32", "expected the model's dtype float32"});
  auto [p2, m2] = refused("f64", "model.2.bias", kFloat64);
  nabla::testing::expect_error(m2, {"load_checkpoint", p2.c_str(), "'model.2.bias'", "stored as float64"});
  auto [p3, m3] = refused("opt", "optimizer.state.0.1.exp_avg", kFloat64);
  nabla::testing::expect_error(m3, {"load_checkpoint", p3.c_str(), "'optimizer.state.0.1.exp_avg'", "stored as float64",
                                    "expected the parameter's dtype float32"});
  EXPECT_EQ(double_values(b->parameters()[0]), before);
  EXPECT_EQ(opt_b.state(0, 0).step, 0);
}

TEST(Checkpoint, AnotherArchitectureNamesTheFile) {
  auto a = make_net(1);
  const std::string path = temp_path_in("nabla_ckpt_test", "arch.safetensors");
  save_checkpoint(path, *a);
  nn::Sequential other(nn::Linear(4, 3));
  nabla::testing::expect_error(
      error_of([&] { load_checkpoint(path, other); }),
      {"load_checkpoint", path.c_str(), "does not fit the model", "unexpected keys: 2.weight"});
}

// Optimizer::load_state_dict does not cast buffers either (PyTorch does).
TEST(Checkpoint, OptimizerStateOfAnotherDtypeIsRefused) {
  auto a = make_net(1);
  optim::Adam opt(a->parameters());
  train_step(*a, opt);
  optim::OptimizerStateDict sd = opt.state_dict();
  sd.state[0][0].buffers["exp_avg"] = sd.state[0][0].buffers["exp_avg"].to(kFloat64);
  nabla::testing::expect_error(
      error_of([&] { opt.load_state_dict(sd); }),
      {"Adam.load_state_dict", "buffer 'exp_avg'", "has dtype float64", "expected the parameter's dtype float32"});
  sd.state[0][0].buffers["exp_avg"] = Tensor();
  nabla::testing::expect_error(error_of([&] { opt.load_state_dict(sd); }),
                               {"Adam.load_state_dict", "buffer 'exp_avg'", "is undefined"});
}

TEST(Checkpoint, RefusesReservedMetadataKeys) {
  auto a = make_net(1);
  EXPECT_NE(error_of([&] {
              save_checkpoint(temp_path_in("nabla_ckpt_test", "r.safetensors"), *a, nullptr, {{"optimizer", "x"}});
            }).find("metadata key 'optimizer' is reserved"),
            std::string::npos);
  EXPECT_THROW(
      save_checkpoint(temp_path_in("nabla_ckpt_test", "r.safetensors"), *a, nullptr, {{"nabla.checkpoint", "7"}}),
      Error);
}

}  // namespace
}  // namespace nabla::io

// nn + optim on a device (the opaque test device of tests/support): a model
// moved with Module::to trains to the CPU's losses with every optimizer, its
// parameters, gradients and optimizer state stay on the device, and a step
// moves no bytes to the host but the loss the loop reads.
#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"
#include "support/opaque_backend.h"

namespace nabla::testing {
namespace {

using MakeOptimizer = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)>;

// Trains a fresh seeded MLP for `steps` on `device`; returns the losses.
std::vector<double> train(Device device, const MakeOptimizer& make, int steps, std::vector<Tensor>* params = nullptr) {
  manual_seed(7);
  nn::Sequential model(nn::Linear(10, 16), nn::Tanh(), nn::Linear(16, 3));
  model.to(device);
  Tensor x = randn({32, 10}).to(device), y = randn({32, 3}).to(device);
  std::unique_ptr<optim::Optimizer> opt = make(model.parameters());
  nn::MSELoss loss_fn;
  std::vector<double> losses;
  for (int t = 0; t < steps; ++t) {
    opt->zero_grad();
    Tensor loss = loss_fn(model(x), y);
    loss.backward();
    opt->step();
    losses.push_back(loss.item<double>());
  }
  if (params) *params = model.parameters();
  return losses;
}

struct NamedOptimizer {
  const char* name;
  MakeOptimizer make;
};

class TrainingOnDevice : public ::testing::TestWithParam<NamedOptimizer> {};

TEST_P(TrainingOnDevice, MatchesTheCpuAndKeepsStateOnTheDevice) {
  const std::vector<double> cpu = train(kCPU, GetParam().make, 5);
  std::vector<Tensor> params;
  reset_opaque_stats();
  const std::vector<double> dev = train(opaque_device(), GetParam().make, 5, &params);
  for (std::size_t t = 0; t < cpu.size(); ++t) EXPECT_NEAR(dev[t], cpu[t], 1e-6 * std::abs(cpu[t])) << "step " << t;
  for (const Tensor& p : params) {
    EXPECT_EQ(p.device(), opaque_device());
    ASSERT_TRUE(p.grad().defined());
    EXPECT_EQ(p.grad().device(), opaque_device());
  }
  // Out to the host: the five losses the loop read (float32), nothing else.
  EXPECT_EQ(opaque_stats().device_to_host_bytes, 5 * 4) << GetParam().name;
}

INSTANTIATE_TEST_SUITE_P(
    Optimizers, TrainingOnDevice,
    ::testing::Values(
        NamedOptimizer{"SGD", [](std::vector<Tensor> p) { return std::make_unique<optim::SGD>(p, optim::Options{{"lr", 0.1}, {"momentum", 0.9}}); }},
        NamedOptimizer{"Adam", [](std::vector<Tensor> p) { return std::make_unique<optim::Adam>(p, optim::Options{{"lr", 1e-2}}); }},
        NamedOptimizer{"AdamW", [](std::vector<Tensor> p) { return std::make_unique<optim::AdamW>(p, optim::Options{{"lr", 1e-2}}); }},
        NamedOptimizer{"RMSprop", [](std::vector<Tensor> p) { return std::make_unique<optim::RMSprop>(p, optim::Options{{"lr", 1e-2}}); }},
        NamedOptimizer{"Adagrad", [](std::vector<Tensor> p) { return std::make_unique<optim::Adagrad>(p, optim::Options{{"lr", 1e-1}}); }}),
    [](const ::testing::TestParamInfo<NamedOptimizer>& i) { return std::string(i.param.name); });

TEST(TrainingOnDeviceCheckpoint, SavesFromAndLoadsOntoADevice) {
  manual_seed(8);
  nn::Linear a(4, 3);
  a.to(opaque_device());
  optim::Adam opt_a(a.parameters(), {{"lr", 1e-2}});
  nn::MSELoss loss_fn;
  Tensor x = randn({5, 4}).to(opaque_device()), y = randn({5, 3}).to(opaque_device());
  loss_fn(a(x), y).backward();
  opt_a.step();
  const std::string path = ::testing::TempDir() + "nabla_device_checkpoint.safetensors";
  io::save_checkpoint(path, a, &opt_a);

  nn::Linear b(4, 3);
  b.to(opaque_device(1));
  optim::Adam opt_b(b.parameters(), {{"lr", 1e-2}});
  io::load_checkpoint(path, b, &opt_b);
  EXPECT_EQ(b.weight.device(), opaque_device(1));
  assert_close(b.weight.cpu(), a.weight.cpu());
  // The next steps agree: the optimizer state came along.
  Tensor x1 = x.to(opaque_device(1)), y1 = y.to(opaque_device(1));
  opt_a.zero_grad();
  opt_b.zero_grad();
  loss_fn(a(x), y).backward();
  loss_fn(b(x1), y1).backward();
  opt_a.step();
  opt_b.step();
  assert_close(b.weight.cpu(), a.weight.cpu());
  EXPECT_EQ(b.weight.device(), opaque_device(1));
}

}  // namespace
}  // namespace nabla::testing

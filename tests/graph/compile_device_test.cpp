// compile() on a device (the opaque test device of tests/support): a traced
// training step of a model moved to the device runs in a Session there, gives
// the eager step's losses and leaves its results and parameters on the
// device; moving the inputs to another device is another signature.
#include <gtest/gtest.h>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"
#include "support/opaque_backend.h"

namespace nabla::testing {
namespace {

Tensor train_step(nn::Module& model, optim::Optimizer& opt, const Tensor& x, const Tensor& y) {
  opt.zero_grad();
  Tensor loss = mse_loss(model.forward(x), y, "sum");
  loss.backward();
  opt.step();
  return loss;
}

TEST(CompileOnDevice, TrainingStepMatchesEagerOnTheCpu) {
  manual_seed(11);
  Tensor x = randn({16, 12}), y = randn({16, 3});
  nn::Sequential eager(nn::Linear(12, 8), nn::ReLU(), nn::Linear(8, 3));
  nn::Sequential on_device(nn::Linear(12, 8), nn::ReLU(), nn::Linear(8, 3));
  on_device.load_state_dict(eager.state_dict());
  on_device.to(opaque_device());
  optim::Adam eager_opt(eager.parameters(), {{"lr", 1e-2}});
  optim::Adam device_opt(on_device.parameters(), {{"lr", 1e-2}});
  auto step = compile([&](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{train_step(on_device, device_opt, in[0], in[1])};
  });
  const Tensor xd = x.to(opaque_device()), yd = y.to(opaque_device());
  for (int t = 0; t < 4; ++t) {
    const double expected = train_step(eager, eager_opt, x, y).item<double>();
    Tensor loss = step({xd, yd})[0];
    EXPECT_EQ(loss.device(), opaque_device());
    EXPECT_NEAR(loss.item<double>(), expected, 1e-5 * std::abs(expected)) << "step " << t;
  }
  EXPECT_EQ(step.num_traces(), 1);
  for (const Tensor& p : on_device.parameters()) EXPECT_EQ(p.device(), opaque_device());
  assert_close(on_device.parameters()[0].cpu(), eager.parameters()[0], {.rtol = 1e-5, .atol = 1e-6});
}

TEST(CompileOnDevice, InferenceOnTheInputsDeviceAndAnotherDeviceIsAnotherTrace) {
  manual_seed(12);
  auto f = compile([](const Tensor& x) { return (x * 2.0 + 1.0).tanh().sum(0); });
  Tensor x = randn({5, 4});
  Tensor on_cpu = f(x);
  Tensor on_dev = f(x.to(opaque_device()));
  EXPECT_EQ(on_dev.device(), opaque_device());
  assert_close(on_dev.cpu(), on_cpu);
  EXPECT_EQ(f.num_traces(), 2);
  const std::vector<std::string> sigs = f.signatures();
  EXPECT_TRUE(sigs[0].find("opaque:0") != std::string::npos || sigs[1].find("opaque:0") != std::string::npos)
      << sigs[0] << " / " << sigs[1];
}

}  // namespace
}  // namespace nabla::testing

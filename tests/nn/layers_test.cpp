// nn layers: Sequential forward vs manual composition, activations, Flatten,
// BatchNorm2d modes, and a TwoLayerNet subclass trained with SGD.
#include <gtest/gtest.h>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"

namespace {

using nabla::testing::assert_close;

using namespace nabla;

TEST(NnLayers, SequentialEqualsManualComposition) {
  manual_seed(0);
  auto fc1 = std::make_shared<nn::Linear>(6, 5);
  auto fc2 = std::make_shared<nn::Linear>(5, 3);
  nn::Sequential s(fc1, nn::Tanh(), fc2, nn::Sigmoid(), nn::GELU(), nn::ReLU());
  Tensor x = randn({4, 6});
  Tensor manual = gelu(linear(linear(x, fc1->weight, fc1->bias).tanh(), fc2->weight, fc2->bias).sigmoid()).relu();
  assert_close(s(x), manual, {.rtol = 0.0, .atol = 1e-5});
  EXPECT_EQ(s.size(), 6u);
}

TEST(NnLayers, FlattenAndConvStack) {
  manual_seed(0);
  nn::Sequential s(nn::Conv2d(3, 4, 3, 1, 1), nn::ReLU(), nn::Flatten(), nn::Linear(4 * 5 * 5, 2));
  Tensor y = s(randn({2, 3, 5, 5}));
  EXPECT_EQ(y.sizes(), Shape({2, 2}));
  y.sum().backward();
  for (const auto& [n, p] : s.named_parameters()) EXPECT_TRUE(p.grad().defined()) << n;
}

TEST(NnLayers, BatchNorm2dTracksRunningStatsInTrainingOnly) {
  manual_seed(0);
  nn::BatchNorm2d bn(3, 1e-5, 0.5);
  Tensor x = randn({4, 3, 2, 2}) * 2.0 + 1.0;
  Tensor y = bn(x);
  EXPECT_NEAR(y.mean().item<float>(), 0.0f, 1e-5f);
  Tensor batch_mean = x.mean({0, 2, 3});
  assert_close(bn.running_mean, batch_mean * 0.5, {.rtol = 0.0, .atol = 1e-5});
  EXPECT_EQ(bn.num_batches_tracked.item<int64_t>(), 1);
  bn.eval();
  Tensor rm = bn.running_mean.clone();
  bn(x);
  assert_close(bn.running_mean, rm, {.rtol = 0.0, .atol = 1e-5});
  EXPECT_EQ(bn.num_batches_tracked.item<int64_t>(), 1);
  EXPECT_EQ(bn.parameters().size(), 2u);
  EXPECT_EQ(bn.buffers().size(), 3u);
}

// The lecture's user-defined module.
struct TwoLayerNet : nn::Module {
  TwoLayerNet(int64_t d_in, int64_t h, int64_t d_out)
      : fc1(register_module("fc1", std::make_shared<nn::Linear>(d_in, h))),
        fc2(register_module("fc2", std::make_shared<nn::Linear>(h, d_out))) {}
  Tensor forward(const Tensor& x) override { return fc2->forward(fc1->forward(x).clamp_min(0)); }
  std::shared_ptr<nn::Linear> fc1, fc2;
};

TEST(NnLayers, TwoLayerNetTrainsWithSgd) {
  manual_seed(0);
  TwoLayerNet model(100, 50, 10);
  Tensor x = randn({64, 100}), y = randn({64, 10});
  optim::SGD opt(model.parameters(), {{"lr", 0.1}});
  float first = 0, last = 0;
  for (int t = 0; t < 50; ++t) {
    Tensor loss = mse_loss(model(x), y);
    if (t == 0) first = loss.item<float>();
    last = loss.item<float>();
    opt.zero_grad();
    loss.backward();
    opt.step();
  }
  EXPECT_LT(last, 0.9f * first);
}

}  // namespace

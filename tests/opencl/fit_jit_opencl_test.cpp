// Issue 16, item 1: fit()'s compiled training step on the OpenCL device
// (PoCL in CI). A small CNN with batch norm and dropout trained with Jit::On
// (every step compiled: a graph::Session on opencl:0) ends where the eager
// steps on the same device end, weights and running statistics bit for bit.
#include <gtest/gtest.h>

#include "nabla/train/train_step.h"
#include "opencl/opencl_test_util.h"

namespace nabla::train {
namespace {

nn::StateDict train_on_opencl(Jit jit) {
  manual_seed(11);
  Tensor x = randn({72, 1, 8, 8});
  Tensor y = matmul(x.reshape({72, 64}), randn({64, 3})).argmax(1);
  manual_seed(5);
  nn::ModulePtr model = std::make_shared<nn::Sequential>(std::vector<nn::ModulePtr>{
      std::make_shared<nn::Conv2d>(1, 4, 3, 1, 1), std::make_shared<nn::ReLU>(), std::make_shared<nn::MaxPool2d>(2),
      std::make_shared<nn::BatchNorm2d>(4), std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(64, 16),
      std::make_shared<nn::ReLU>(), std::make_shared<nn::Dropout>(0.25), std::make_shared<nn::Linear>(16, 3)});
  Trainer t(model, {.optimizer = std::make_shared<optim::Adam>(model->parameters(), optim::Options{{"lr", 1e-2}}),
                    .metrics = {"accuracy"},
                    .device = Device("opencl:0")});
  manual_seed(6);
  t.fit(x, y, {.epochs = 2, .batch_size = 32, .verbose = 0, .jit = jit, .seed = 4});
  nn::StateDict out;
  for (const auto& [k, v] : model->state_dict()) out.insert(k, v.cpu());
  return out;
}

TEST(FitJitOpenCL, CompiledStepsOnTheDeviceTrainLikeEagerOnes) {
  NABLA_SKIP_WITHOUT_OPENCL();
  nn::StateDict eager = train_on_opencl(Jit::Off);
  nn::StateDict compiled = train_on_opencl(Jit::On);
  ASSERT_EQ(compiled.size(), eager.size());
  // The same kernels on the same values: bit for bit, as on the CPU.
  for (const auto& [k, t] : eager) EXPECT_TRUE(equal(compiled.at(k), t)) << k;
  EXPECT_EQ(compiled.at("3.num_batches_tracked").item<int64_t>(), 6);  // 72 samples: 32, 32, 8; two epochs
}

}  // namespace
}  // namespace nabla::train

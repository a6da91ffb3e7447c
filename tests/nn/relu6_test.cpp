// nn::ReLU6 (MobileNetV2's activation): values as torch.nn.ReLU6 at and
// around the edges, its gradient (PyTorch's: 0 at exactly 0 and 6), and a gradcheck in float64.
#include <gtest/gtest.h>

#include <limits>

#include "nabla/nabla.h"
#include "support/op_info.h"

namespace {

using namespace nabla;

TEST(NnReLU6, ValuesAreClampedToZeroAndSix) {
  nn::ReLU6 relu6;
  Tensor x = tensor(std::vector<float>{-1e30f, -2.0f, -0.0f, 0.0f, 0.5f, 5.999f, 6.0f, 6.001f, 1e30f});
  Tensor want = tensor(std::vector<float>{0.0f, 0.0f, 0.0f, 0.0f, 0.5f, 5.999f, 6.0f, 6.0f, 6.0f});
  EXPECT_TRUE(equal(relu6(x), want));
  EXPECT_TRUE(relu6(tensor(std::vector<float>{std::numeric_limits<float>::quiet_NaN()})).isnan().item<bool>());  // as torch: NaN stays NaN
  EXPECT_EQ(relu6.name(), "ReLU6");
}

TEST(NnReLU6, GradientIsOneBetweenTheEdgesAndZeroOutside) {
  nn::ReLU6 relu6;
  Tensor x = tensor(std::vector<double>{-3.0, 0.25, 3.0, 5.75, 9.0}).requires_grad_();
  relu6(x).sum().backward();
  EXPECT_TRUE(equal(x.grad(), tensor(std::vector<double>{0.0, 1.0, 1.0, 1.0, 0.0})));
}

TEST(NnReLU6, GradientIsZeroAtExactlyZeroAndSixAsPyTorchs) {
  // torch.nn.ReLU6 is hardtanh(x, 0, 6), whose backward passes the gradient
  // only where 0 < x < 6.
  nn::ReLU6 relu6;
  Tensor x = tensor(std::vector<double>{0.0, 6.0, -0.0}).requires_grad_();
  relu6(x).sum().backward();
  EXPECT_TRUE(equal(x.grad(), tensor(std::vector<double>{0.0, 0.0, 0.0})));
  Tensor f = tensor(std::vector<float>{0.0f, 6.0f, 2.5f}).requires_grad_();
  Tensor y = relu6(f);
  EXPECT_EQ(y.dtype(), kFloat32);
  y.sum().backward();
  EXPECT_TRUE(equal(f.grad(), tensor(std::vector<float>{0.0f, 0.0f, 1.0f})));
}

TEST(NnReLU6, Gradcheck) {
  // Samples away from the kinks at 0 and 6, where finite differences are not defined.
  nn::ReLU6 relu6;
  nabla::testing::OpInfo info;
  info.name = "ReLU6";
  info.run = [&](const nabla::testing::Tensors& t) -> nabla::testing::Tensors { return {relu6(t[0])}; };
  Tensor x = tensor(std::vector<double>{-2.0, -0.5, 0.25, 1.0, 3.5, 5.5, 6.5, 9.0}, {2, 4});
  EXPECT_EQ(nabla::testing::gradcheck(info, {x}), "");
}

}  // namespace

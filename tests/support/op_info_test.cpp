// The test harness must be able to fail: a wrong gradient rule and a wrong
// forward value are caught.
#include <gtest/gtest.h>

#include "support/op_info.h"

namespace nabla::testing {
namespace {

TEST(OpInfoHarness, GradcheckCatchesAWrongGradient) {
  OpInfo info;
  info.name = "wrong_square";
  // d/dx (x.detach() * x) is x.detach(), but the true derivative of x^2 is 2x.
  info.run = [](const Tensors& in) { return Tensors{in[0].detach() * in[0]}; };
  Tensors inputs{sample({3}, 0.5, 1.5)};
  EXPECT_FALSE(gradcheck(info, inputs).empty());
  info.run = [](const Tensors& in) { return Tensors{in[0] * in[0]}; };
  EXPECT_TRUE(gradcheck(info, inputs).empty());
}

TEST(OpInfoHarness, GradgradcheckCatchesAWrongSecondDerivative) {
  OpInfo info;
  info.name = "wrong_cube";
  // First derivative right (3x^2 via x^2.detach()*3x... no): use a detach inside
  // so the second derivative is wrong while the first one is right.
  info.run = [](const Tensors& in) {
    Tensor x = in[0];
    return Tensors{x * (x * x).detach()};  // first derivative x^2 (wrong: 3x^2)
  };
  Tensors inputs{sample({3}, 0.5, 1.5)};
  EXPECT_FALSE(gradcheck(info, inputs).empty());
  info.run = [](const Tensors& in) { return Tensors{in[0] * in[0] * in[0]}; };
  EXPECT_TRUE(gradgradcheck(info, inputs).empty());
}

TEST(OpInfoHarness, CompareCatchesWrongValues) {
  Tensor a = tensor({1.0, 2.0}), b = tensor({1.0, 2.5});
  EXPECT_FALSE(compare(a, b, 1e-6, 1e-6).empty());
  EXPECT_TRUE(compare(a, a, 1e-6, 1e-6).empty());
  EXPECT_FALSE(compare(a, tensor({1.0, 2.0, 3.0}), 1e-6, 1e-6).empty());
}

}  // namespace
}  // namespace nabla::testing

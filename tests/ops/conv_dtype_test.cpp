// Result dtypes of the conv and pool ops (the OpInfo forward suites compare
// values only): float32 stays float32, float16 is computed in float32 and
// rounded back, mixed float32/float64 operands promote to float64, and
// max-pool indices are int64.
#include <gtest/gtest.h>

#include "nabla/nabla.h"

namespace nabla {
namespace {

TEST(ConvDtypes, FloatTypesArePreserved) {
  for (DType t : {kFloat32, kFloat64}) {
    Tensor x = ones({1, 2, 5, 5}, dtype(t)), w = ones({2, 2, 3, 3}, dtype(t)), b = ones({2}, dtype(t));
    EXPECT_EQ(conv2d(x, w, b).dtype(), t);
    EXPECT_EQ(conv_transpose2d(x, w, b).dtype(), t);
    EXPECT_EQ(conv2d_weight_grad(x, ones({1, 2, 3, 3}, dtype(t)), {2, 2, 3, 3}).dtype(), t);
    auto [v, i] = max_pool2d_with_indices(x, {2});
    EXPECT_EQ(v.dtype(), t);
    EXPECT_EQ(i.dtype(), kInt64);
    EXPECT_EQ(avg_pool2d(x, {2}).dtype(), t);
    EXPECT_EQ(adaptive_avg_pool2d(x, {2}).dtype(), t);
  }
}

TEST(ConvDtypes, MixedOperandsPromote) {
  Tensor x = ones({1, 2, 5, 5}, dtype(kFloat32)), w = ones({2, 2, 3, 3}, dtype(kFloat64));
  Tensor y = conv2d(x, w);
  EXPECT_EQ(y.dtype(), kFloat64);
  EXPECT_DOUBLE_EQ(y.at<double>({0, 0, 1, 1}), 18.0);
}

TEST(ConvDtypes, HalfIsComputedInFloat32) {
  Tensor x = ones({1, 2, 5, 5}, dtype(kFloat16)), w = ones({2, 2, 3, 3}, dtype(kFloat16));
  Tensor y = conv2d(x, w, Tensor(), {1}, {1});
  EXPECT_EQ(y.dtype(), kFloat16);
  EXPECT_DOUBLE_EQ(y.at<double>({0, 1, 2, 2}), 18.0);
  EXPECT_DOUBLE_EQ(y.at<double>({0, 1, 0, 0}), 8.0);  // corner: 2x2 taps inside, times 2 channels
  EXPECT_EQ(max_pool2d(x, {2}).dtype(), kFloat16);
  EXPECT_DOUBLE_EQ(avg_pool2d(x, {2}).at<double>({0, 0, 1, 1}), 1.0);
}

}  // namespace
}  // namespace nabla

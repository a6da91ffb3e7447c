// The kernels at the edge of a channels-last block (graph/passes/conv_layout.h):
// an NHWC tensor copied to NCHW (a flatten's reshape) as a blocked transpose,
// the sum over H and W of an NHWC gradient (a conv bias gradient), and
// conv2d_relu (a Conv2d followed by a ReLU in nn::Sequential) keeping the
// channels-last format of its input, as conv2d does.
#include <gtest/gtest.h>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"

namespace nabla {
namespace {

using testing::assert_close;

TEST(FormatBoundary, ChannelsLastCopiesBackToContiguousExactly) {
  manual_seed(2);
  for (DType dt : {kFloat32, kFloat64, kInt64, kBool}) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    // 37 x 41 planes: more than one 32-wide block each way, with remainders.
    for (const Shape& sizes : {Shape{3, 5, 4, 6}, Shape{2, 37, 41, 1}, Shape{1, 40, 6, 7}}) {
      Tensor x = (randn(sizes) * 50.0).to(dt);
      Tensor nhwc = to(x, MemoryFormat::ChannelsLast);
      ASSERT_TRUE(is_contiguous(nhwc, MemoryFormat::ChannelsLast));
      Tensor back = nhwc.contiguous();
      EXPECT_TRUE(back.is_contiguous());
      EXPECT_TRUE(equal(back, x));
      EXPECT_TRUE(equal(nhwc.reshape({sizes[0], -1}), x.reshape({sizes[0], -1})));
    }
  }
}

TEST(FormatBoundary, SumOverPlanesOfAChannelsLastTensor) {
  manual_seed(3);
  for (DType dt : {kFloat32, kFloat64}) {
    Tensor x = randn({4, 19, 9, 7}).to(dt);
    Tensor nhwc = to(x, MemoryFormat::ChannelsLast);
    assert_close(sum(nhwc, {2, 3}), sum(x, {2, 3}), {.rtol = 1e-6, .atol = 1e-5});
    assert_close(sum(nhwc, {2, 3}, /*keepdim=*/true), sum(x, {2, 3}, true), {.rtol = 1e-6, .atol = 1e-5});
  }
  // Integers sum exactly.
  Tensor counts = randint(0, 100, {3, 5, 4, 4});
  EXPECT_TRUE(equal(sum(to(counts, MemoryFormat::ChannelsLast), {2, 3}), sum(counts, {2, 3})));
}

TEST(FormatBoundary, ConvReluKeepsChannelsLast) {
  manual_seed(4);
  nn::Sequential block(nn::Conv2d(3, 8, 3, 1, 1), nn::ReLU());
  Tensor x = randn({2, 3, 10, 10});
  Tensor expected = relu(conv2d(x, block.parameters()[0], block.parameters()[1], {1}, {1}));
  nn::to(block, MemoryFormat::ChannelsLast);
  Tensor y = block.forward(to(x, MemoryFormat::ChannelsLast));
  EXPECT_TRUE(is_contiguous(y, MemoryFormat::ChannelsLast));
  EXPECT_FALSE(y.is_contiguous());
  assert_close(y, expected, {.rtol = 1e-5, .atol = 1e-5});
}

}  // namespace
}  // namespace nabla

// Bad arguments to the convolution and pooling ops raise nabla::Error whose
// message names the op, what was given and what was expected.
#include <gtest/gtest.h>

#include "nabla/nabla.h"
#include "support/error_input_tensors.h"

namespace nabla {
namespace {

using testing::zeros_of;

// The message of the nabla::Error fn throws ("" if it throws nothing).
template <class Fn>
std::string error_or_empty(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_CONV_ERROR(stmt, ...)                                                              \
  do {                                                                                            \
    std::string msg_ = error_or_empty([&] { (void)(stmt); });                                     \
    ASSERT_FALSE(msg_.empty()) << #stmt << " did not throw nabla::Error";                         \
    for (const char* part : {__VA_ARGS__})                                                        \
      EXPECT_NE(msg_.find(part), std::string::npos) << "missing \"" << part << "\" in: " << msg_; \
  } while (0)

TEST(ConvErrors, WrongDims) {
  EXPECT_CONV_ERROR(conv2d(zeros_of({3, 5}), zeros_of({4, 3, 3, 3})), "conv2d: expected a 4-D input [N, C, H, W]",
                    "got shape [3, 5]");
  EXPECT_CONV_ERROR(conv2d(zeros_of({1, 3, 5, 5}), zeros_of({4, 3, 3})), "conv2d: expected a 4-D weight",
                    "got shape [4, 3, 3]");
  EXPECT_CONV_ERROR(conv1d(zeros_of({1, 3, 5, 5}), zeros_of({4, 3, 3})), "conv1d: expected a 3-D input [N, C, L]",
                    "got shape [1, 3, 5, 5]");
  EXPECT_CONV_ERROR(conv1d(zeros_of({1, 3, 5}), zeros_of({4, 3, 3, 3})), "conv1d: expected a 3-D weight",
                    "got shape [4, 3, 3, 3]");
  EXPECT_CONV_ERROR(conv_transpose2d(zeros_of({3, 5}), zeros_of({3, 2, 3, 3})),
                    "conv_transpose2d: expected a 4-D input", "got shape [3, 5]");
  EXPECT_CONV_ERROR(conv2d_nhwc(zeros_of({5, 5, 3}), zeros_of({4, 3, 3, 3})),
                    "conv2d_nhwc: expected a 4-D input [N, H, W, C]");
}

TEST(ConvErrors, ChannelMismatch) {
  EXPECT_CONV_ERROR(conv2d(zeros_of({1, 3, 5, 5}), zeros_of({4, 2, 3, 3})),
                    "conv2d: input of shape [1, 3, 5, 5] has 3 channels",
                    "weight of shape [4, 2, 3, 3] with groups=1 expects 2");
  EXPECT_CONV_ERROR(conv1d(zeros_of({1, 3, 7}), zeros_of({4, 2, 3})),
                    "conv1d: input of shape [1, 3, 1, 7] has 3 channels", "expects 2",
                    "(conv1d runs conv2d over [N, C, 1, L])");
  EXPECT_CONV_ERROR(conv_transpose2d(zeros_of({1, 3, 4, 4}), zeros_of({2, 2, 3, 3})),
                    "conv_transpose2d: input of shape [1, 3, 4, 4]", "has 3 channels", "expects 2 (weight.size(0))");
  EXPECT_CONV_ERROR(conv2d(zeros_of({1, 3, 5, 5}), zeros_of({4, 3, 3, 3}), zeros_of({3})),
                    "conv2d: expected a 1-D bias of size 4", "got shape [3]");
}

TEST(ConvErrors, GroupsMustDivideChannels) {
  EXPECT_CONV_ERROR(conv2d(zeros_of({1, 4, 5, 5}), zeros_of({3, 2, 3, 3}), Tensor(), {1}, {0}, {1}, 2),
                    "conv2d: groups=2 must divide out_channels", "weight of shape [3, 2, 3, 3] has 3 output channels");
  EXPECT_CONV_ERROR(conv2d(zeros_of({1, 3, 5, 5}), zeros_of({4, 1, 3, 3}), Tensor(), {1}, {0}, {1}, 2),
                    "conv2d: groups=2 must divide in_channels", "input of shape [1, 3, 5, 5] has 3 channels");
  EXPECT_CONV_ERROR(conv2d(zeros_of({1, 4, 5, 5}), zeros_of({4, 2, 3, 3}), Tensor(), {1}, {0}, {1}, 0),
                    "conv2d: groups must be positive, got 0");
  EXPECT_CONV_ERROR(conv_transpose2d(zeros_of({1, 3, 4, 4}), zeros_of({3, 2, 3, 3}), Tensor(), {1}, {0}, {0}, 2),
                    "conv_transpose2d: groups=2 must divide in_channels");
}

TEST(ConvErrors, KernelLargerThanPaddedInput) {
  EXPECT_CONV_ERROR(conv2d(zeros_of({1, 1, 2, 2}), zeros_of({1, 1, 3, 3})), "conv2d: the kernel 3x3",
                    "larger than the padded input 2x2", "input shape [1, 1, 2, 2]");
  EXPECT_NO_THROW(conv2d(zeros_of({1, 1, 2, 2}), zeros_of({1, 1, 3, 3}), Tensor(), {1}, {1}));
  EXPECT_CONV_ERROR(conv2d(zeros_of({1, 1, 4, 4}), zeros_of({1, 1, 3, 3}), Tensor(), {1}, {0}, {2}),
                    "dilation [2, 2], so 5x5", "padded input 4x4");
  EXPECT_CONV_ERROR(conv1d(zeros_of({1, 1, 2}), zeros_of({1, 1, 3})), "conv1d", "larger than the padded input");
}

TEST(ConvErrors, BadHyperParameters) {
  EXPECT_CONV_ERROR(conv2d(zeros_of({1, 1, 5, 5}), zeros_of({1, 1, 3, 3}), Tensor(), {0, 1}),
                    "conv2d: stride must be positive", "got [0, 1]");
  EXPECT_CONV_ERROR(conv2d(zeros_of({1, 1, 5, 5}), zeros_of({1, 1, 3, 3}), Tensor(), {1}, {-1}),
                    "conv2d: padding must be non-negative", "got [-1, -1]");
  EXPECT_CONV_ERROR(conv2d(zeros_of({1, 1, 5, 5}), zeros_of({1, 1, 3, 3}), Tensor(), {1}, {0}, {0}),
                    "conv2d: dilation must be positive");
  EXPECT_CONV_ERROR(conv2d(zeros_of({1, 1, 5, 5}), zeros_of({1, 1, 3, 3}), Tensor(), {1, 1, 1}),
                    "conv2d: stride must have 1 or 2 values", "got [1, 1, 1]");
  EXPECT_CONV_ERROR(conv1d(zeros_of({1, 1, 5}), zeros_of({1, 1, 3}), Tensor(), {-2}), "conv1d",
                    "stride must be positive");
  EXPECT_CONV_ERROR(
      conv_transpose2d(zeros_of({1, 2, 3, 3}), zeros_of({2, 2, 3, 3}), Tensor(), {2}, {0}, {2}),
      "conv_transpose2d: output_padding [2, 2] must be smaller than either stride [2, 2] or dilation [1, 1]");
  EXPECT_CONV_ERROR(conv_transpose2d(zeros_of({1, 2, 3, 3}), zeros_of({2, 2, 3, 3}), Tensor(), {0}),
                    "conv_transpose2d: stride must be positive");
  EXPECT_CONV_ERROR(conv_transpose2d(zeros_of({1, 2, 1, 1}), zeros_of({2, 2, 1, 1}), Tensor(), {1}, {1}),
                    "conv_transpose2d: input of shape [1, 2, 1, 1]", "gives an output of size -1x-1",
                    "expected a positive size");
}

TEST(ConvErrors, DtypesAndWeightGrad) {
  EXPECT_CONV_ERROR(conv2d(zeros_of({1, 1, 5, 5}, kInt64), zeros_of({1, 1, 3, 3}, kInt64)),
                    "conv2d: expected floating-point tensors", "got dtype int64");
  EXPECT_CONV_ERROR(conv2d_weight_grad(zeros_of({2, 3, 5, 5}), zeros_of({2, 4, 4, 3}), {4, 3, 3, 3}),
                    "conv2d_weight_grad: grad_output of shape [2, 4, 4, 3] does not fit input [2, 3, 5, 5]",
                    "expected [2, 4, <=3, <=3]");
  EXPECT_CONV_ERROR(conv2d_weight_grad(zeros_of({2, 3, 5, 5}), zeros_of({2, 4, 3, 3}), {4, 3, 3}),
                    "conv2d_weight_grad: weight_sizes must have 4 values");
}

TEST(PoolErrors, WrongDimsAndSizes) {
  EXPECT_CONV_ERROR(max_pool2d(zeros_of({5, 5}), {2}), "max_pool2d: expected a 4-D input [N, C, H, W]",
                    "got shape [5, 5]");
  EXPECT_CONV_ERROR(avg_pool2d(zeros_of({1, 1, 1, 5, 5}), {2}), "avg_pool2d: expected a 4-D input",
                    "got shape [1, 1, 1, 5, 5]");
  EXPECT_CONV_ERROR(adaptive_avg_pool2d(zeros_of({5}), {2}), "adaptive_avg_pool2d: expected a 4-D input");
  EXPECT_CONV_ERROR(max_pool2d(zeros_of({1, 1, 2, 2}), {3}), "max_pool2d: input of shape [1, 1, 2, 2] is too small",
                    "kernel_size [3, 3]", "output would be 0x0");
  EXPECT_CONV_ERROR(avg_pool2d(zeros_of({1, 1, 2, 2}), {3}), "avg_pool2d: input of shape [1, 1, 2, 2] is too small");
  EXPECT_CONV_ERROR(max_pool2d(zeros_of({1, 1, 5, 5}, kInt64), {2}), "max_pool2d: expected a floating-point input",
                    "got dtype int64");
}

TEST(PoolErrors, BadHyperParameters) {
  EXPECT_CONV_ERROR(max_pool2d(zeros_of({1, 1, 5, 5}), {0}), "max_pool2d: kernel_size must be positive", "got [0, 0]");
  EXPECT_CONV_ERROR(max_pool2d(zeros_of({1, 1, 5, 5}), {2}, {0}), "max_pool2d: stride must be positive", "got [0, 0]");
  EXPECT_CONV_ERROR(max_pool2d(zeros_of({1, 1, 5, 5}), {2}, {2}, {2}), "max_pool2d: padding [2, 2]",
                    "at most half of kernel_size [2, 2]");
  EXPECT_CONV_ERROR(max_pool2d(zeros_of({1, 1, 5, 5}), {2}, {2}, {0}, {0}), "max_pool2d: dilation must be positive");
  EXPECT_CONV_ERROR(max_pool2d(zeros_of({1, 1, 5, 5}), {2, 2, 2}), "max_pool2d: kernel_size must have 1 or 2 values");
  EXPECT_CONV_ERROR(avg_pool2d(zeros_of({1, 1, 5, 5}), {3}, {1}, {2}), "avg_pool2d: padding [2, 2]", "at most half");
  EXPECT_CONV_ERROR(avg_pool2d(zeros_of({1, 1, 5, 5}), {2}, {1}, {0}, false, true, -1),
                    "avg_pool2d: divisor_override must be positive");
  EXPECT_CONV_ERROR(adaptive_avg_pool2d(zeros_of({1, 1, 5, 5}), {0, 2}),
                    "adaptive_avg_pool2d: output_size must be positive", "got [0, 2]");
}

TEST(PoolErrors, BackwardPrimitives) {
  EXPECT_CONV_ERROR(max_pool2d_backward(zeros_of({1, 1, 2, 2}), zeros_of({1, 1, 2, 2}), {1, 1, 4, 4}),
                    "max_pool2d_backward: expected int64 indices", "got float32");
  EXPECT_CONV_ERROR(max_pool2d_backward(zeros_of({1, 1, 2, 2}), zeros_of({1, 1, 2, 2}, kInt64), {1, 2, 4, 4}),
                    "max_pool2d_backward: input_sizes [1, 2, 4, 4] do not match grad_output of shape [1, 1, 2, 2]");
  EXPECT_CONV_ERROR(avg_pool2d_backward(zeros_of({1, 1, 3, 3}), {1, 1, 4, 4}, {2}),
                    "avg_pool2d_backward: grad_output of shape [1, 1, 3, 3] does not match [1, 1, 2, 2]");
  EXPECT_CONV_ERROR(max_pool2d_gather(zeros_of({1, 1, 4, 4}), zeros_of({2, 1, 2, 2}, kInt64)),
                    "max_pool2d_gather: expected int64 indices [N, C, OH, OW]");
}

#undef EXPECT_CONV_ERROR

}  // namespace
}  // namespace nabla

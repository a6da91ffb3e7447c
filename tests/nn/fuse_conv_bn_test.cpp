// nn::fuse_conv_bn_eval and nn::fuse_for_inference: a Conv2d with the
// following eval-mode BatchNorm2d folded in computes what the two computed
// (float64 to 1e-12, float32 to 1e-5), for NCHW and channels-last inputs,
// NHWC layers, with and without a conv bias, with groups, and with running
// statistics far from their initial values; and the errors.
#include "nabla/nn/fusion.h"

#include <gtest/gtest.h>

#include <typeinfo>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"
#include "tests/support/error_message.h"

namespace nabla::nn {
namespace {

using nabla::testing::assert_close;
using nabla::testing::error_of;
using nabla::testing::expect_error;

// Gives a batch norm layer statistics and affine parameters unlike its
// initial ones (mean 0, var 1, weight 1, bias 0 would hide a wrong formula).
void randomize(BatchNorm2d& bn) {
  NoGradGuard no_grad;
  const int64_t c = bn.num_features;
  const DType dt = bn.running_mean.dtype();
  bn.running_mean.copy_(randn({c}).to(dt) * 2.0);
  bn.running_var.copy_(rand({c}).to(dt) * 3.0 + 0.2);
  if (bn.weight.defined()) {
    bn.weight.copy_(randn({c}).to(dt));
    bn.bias.copy_(randn({c}).to(dt));
  }
}

struct Case {
  bool conv_bias;
  int64_t groups;
  bool affine;
  std::string format;  // the layers' data_format
  bool channels_last;  // the input's memory format (NCHW layers)
};

void check_fold(const Case& k, DType dt) {
  SCOPED_TRACE(::testing::Message() << "bias=" << k.conv_bias << " groups=" << k.groups << " affine=" << k.affine
                                    << " format=" << k.format << " channels_last=" << k.channels_last << " " << dt);
  manual_seed(11);
  Conv2d conv(4, 6, 3, 1, 1, 1, k.groups, k.conv_bias, k.format);
  BatchNorm2d bn(6, 1e-3, 0.1, k.affine, true, k.format);
  conv.to(dt);
  bn.to(dt);
  randomize(bn);
  conv.eval();
  bn.eval();
  Tensor x = randn(k.format == "NHWC" ? Shape{2, 7, 5, 4} : Shape{2, 4, 7, 5}).to(dt);
  if (k.channels_last) x = to(x, MemoryFormat::ChannelsLast);
  NoGradGuard no_grad;
  Tensor expected = bn.forward(conv.forward(x));
  const Tensor w_before = conv.weight.clone();
  std::shared_ptr<Conv2d> fused = fuse_conv_bn_eval(conv, bn);
  ASSERT_TRUE(fused->bias.defined());
  EXPECT_EQ(fused->weight.dtype(), dt);
  EXPECT_EQ(fused->groups, k.groups);
  EXPECT_EQ(fused->data_format, k.format);
  EXPECT_FALSE(fused->is_training());
  Tensor y = fused->forward(x);
  if (dt == kFloat64)
    assert_close(y, expected, {.rtol = 1e-12, .atol = 1e-12});
  else
    assert_close(y, expected, {.rtol = 1e-5, .atol = 1e-5});
  assert_close(conv.weight, w_before, {.rtol = 0.0, .atol = 0.0});  // the originals are untouched
}

TEST(FuseConvBnEval, FoldedConvolutionEqualsConvThenBatchNorm) {
  const Case cases[] = {
      {true, 1, true, "NCHW", false},  {false, 1, true, "NCHW", false}, {true, 2, true, "NCHW", false},
      {false, 2, false, "NCHW", false}, {true, 1, true, "NCHW", true},  {false, 2, true, "NCHW", true},
      {true, 1, true, "NHWC", false},  {false, 2, true, "NHWC", false},
  };
  for (const Case& k : cases) {
    check_fold(k, kFloat64);
    check_fold(k, kFloat32);
  }
}

TEST(FuseConvBnEval, KeepsChannelsLastWeightsRequiresGradAndTheRandomStream) {
  manual_seed(3);
  Conv2d conv(3, 4, 3);
  BatchNorm2d bn(4);
  randomize(bn);
  nn::to(conv, MemoryFormat::ChannelsLast);
  conv.weight.requires_grad_(false);
  conv.eval();
  bn.eval();
  const GeneratorState before = default_generator().get_state();
  auto fused = fuse_conv_bn_eval(conv, bn);
  EXPECT_EQ(default_generator().get_state(), before);  // the new module's init drew from a scratch generator
  EXPECT_TRUE(is_contiguous(fused->weight, MemoryFormat::ChannelsLast));
  EXPECT_FALSE(fused->weight.requires_grad());
  EXPECT_FALSE(fused->bias.requires_grad());
}

TEST(FuseConvBnEval, Refusals) {
  Conv2d conv(3, 4, 3);
  BatchNorm2d bn(4);
  // Training mode (the default) for either module.
  expect_error(error_of([&] { fuse_conv_bn_eval(conv, bn); }),
               {"nn::fuse_conv_bn_eval", "Conv2d in training mode", "eval()"});
  conv.eval();
  expect_error(error_of([&] { fuse_conv_bn_eval(conv, bn); }), {"BatchNorm2d in training mode"});
  bn.eval();
  BatchNorm2d no_stats(4, 1e-5, 0.1, true, /*track_running_stats=*/false);
  no_stats.eval();
  expect_error(error_of([&] { fuse_conv_bn_eval(conv, no_stats); }),
               {"nn::fuse_conv_bn_eval", "track_running_stats=false", "expected a BatchNorm2d with running_mean"});
  BatchNorm2d wide(5);
  wide.eval();
  expect_error(error_of([&] { fuse_conv_bn_eval(conv, wide); }),
               {"nn::fuse_conv_bn_eval", "BatchNorm2d's 5 features", "Conv2d(3, 4, groups=1)", "[4, 3, 3, 3]"});
  BatchNorm2d nhwc(4, 1e-5, 0.1, true, true, "NHWC");
  nhwc.eval();
  expect_error(error_of([&] { fuse_conv_bn_eval(conv, nhwc); }), {"data_format \"NCHW\"", "\"NHWC\""});
  EXPECT_NO_THROW(fuse_conv_bn_eval(conv, bn));
}

TEST(FuseForInference, FoldsEveryConvBatchNormPairOfTheSequentials) {
  manual_seed(5);
  auto inner = std::make_shared<Sequential>(Conv2d(8, 8, 3, 1, 1, 1, 2, false), BatchNorm2d(8), ReLU());
  Sequential model(Conv2d(3, 8, 3, 1, 1), BatchNorm2d(8), ReLU(), inner, MaxPool2d(2), BatchNorm2d(8),
                   Conv2d(8, 4, 1), BatchNorm2d(4));
  model.to(kFloat64);
  for (const auto& [name, m] : model.named_modules())
    if (auto bn = std::dynamic_pointer_cast<BatchNorm2d>(m)) randomize(*bn);
  model.eval();
  Tensor x = randn({2, 3, 8, 8}, kFloat64);
  NoGradGuard no_grad;
  Tensor expected = model.forward(x);
  EXPECT_EQ(fuse_for_inference(model), 3);  // 0+1, inner 0+1, 6+7; not the BatchNorm2d after the pool
  EXPECT_EQ(typeid(*model[1]), typeid(Identity));
  EXPECT_EQ(typeid(*(*inner)[1]), typeid(Identity));
  EXPECT_EQ(typeid(*model[5]), typeid(BatchNorm2d));
  EXPECT_EQ(typeid(*model[7]), typeid(Identity));
  EXPECT_TRUE(std::dynamic_pointer_cast<Conv2d>(model[6])->bias.defined());
  assert_close(model.forward(x), expected, {.rtol = 1e-12, .atol = 1e-12});
  EXPECT_TRUE(model.state_dict().contains("0.bias"));
  EXPECT_FALSE(model.state_dict().contains("1.running_mean"));
  EXPECT_EQ(fuse_for_inference(model), 0);  // nothing left to fold
}

TEST(FuseForInference, ChecksEveryPairBeforeChangingAnything) {
  auto inner = std::make_shared<Sequential>(Conv2d(4, 4, 1), BatchNorm2d(4));
  Sequential model(Conv2d(3, 4, 3), BatchNorm2d(4), inner);
  model.eval();
  inner->train();  // one pair still in training mode
  std::string msg = error_of([&] { fuse_for_inference(model); });
  expect_error(msg, {"nn::fuse_conv_bn_eval", "modules 2.0 and 2.1", "training mode"});
  EXPECT_EQ(typeid(*model[1]), typeid(BatchNorm2d));  // the first pair was left as it was
  inner->eval();
  EXPECT_EQ(fuse_for_inference(model), 2);
}

}  // namespace
}  // namespace nabla::nn

// The layers beside Linear/Conv2d and the loss modules through the public
// API: shapes, modes, printing (extra_repr), argument errors, Embedding's
// from_pretrained, Module::to(Device). Their numbers are checked against
// PyTorch in layer_reference_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "nabla/nabla.h"
#include "tests/support/absent_device.h"
#include "tests/support/error_message.h"

namespace {

using namespace nabla;
using nabla::testing::error_of;

std::string repr(const nn::Module& m) {
  std::ostringstream os;
  os << m;
  return os.str();
}

// The message of the nabla::Error that f throws ("" if none).
TEST(NnLayerModules, ConvAndPoolShapes) {
  manual_seed(0);
  EXPECT_EQ(nn::Conv1d(3, 8, 3, 2, 1)(randn({2, 3, 10})).sizes(), Shape({2, 8, 5}));
  EXPECT_EQ(nn::Conv1d(3, 8, 3)(randn({3, 10})).sizes(), Shape({8, 8}));  // unbatched
  EXPECT_EQ(nn::Conv2d(3, 4, {3, 1}, {2, 1}, {1, 0})(randn({1, 3, 8, 5})).sizes(), Shape({1, 4, 4, 5}));
  EXPECT_EQ(nn::ConvTranspose2d(4, 2, 3, 2, 1, 1)(randn({1, 4, 5, 5})).sizes(), Shape({1, 2, 10, 10}));
  EXPECT_EQ(nn::MaxPool2d(2)(randn({1, 2, 7, 7})).sizes(), Shape({1, 2, 3, 3}));
  EXPECT_EQ(nn::MaxPool2d(2, 2, 0, 1, true)(randn({1, 2, 7, 7})).sizes(), Shape({1, 2, 4, 4}));
  EXPECT_EQ(nn::AvgPool2d({2, 3}, 1)(randn({2, 5, 6})).sizes(), Shape({2, 4, 4}));
  EXPECT_EQ(nn::AdaptiveAvgPool2d(1)(randn({2, 5, 6, 7})).sizes(), Shape({2, 5, 1, 1}));
  EXPECT_EQ(nn::Unflatten(1, {2, -1})(randn({3, 8})).sizes(), Shape({3, 2, 4}));
}

TEST(NnLayerModules, BadArgumentsNameTheLayer) {
  EXPECT_NE(error_of([] { nn::Conv1d(3, 4, 3, 1, 0, 1, 2); }).find("nn::Conv1d"), std::string::npos);
  EXPECT_NE(error_of([] { nn::Conv2d(3, 4, {3, 0}); }).find("kernel_size=(3, 0)"), std::string::npos);
  EXPECT_NE(error_of([] { nn::ConvTranspose2d(2, 2, 3, 2, 0, 2); }).find("output_padding"), std::string::npos);
  EXPECT_NE(error_of([] { nn::MaxPool2d(2, std::nullopt, 2); }).find("at most half"), std::string::npos);
  EXPECT_THROW(nn::AvgPool2d(2, 2, 0, false, true, 0), Error);
  EXPECT_THROW(nn::AdaptiveAvgPool2d({0, 2}), Error);
  EXPECT_THROW(nn::LayerNorm(std::vector<int64_t>{}), Error);
  EXPECT_NE(error_of([] { nn::GroupNorm(4, 6); }).find("divisible by num_groups"), std::string::npos);
  EXPECT_THROW(nn::Embedding(10, 4, 10), Error);
  EXPECT_THROW(nn::Embedding(10, 4, -11), Error);
  EXPECT_THROW(nn::BatchNorm1d(0), Error);
  EXPECT_THROW(nn::Unflatten(1, {}), Error);
  nn::BatchNorm1d bn(3);
  EXPECT_NE(error_of([&] {
              bn(ones({2, 3, 4, 4}));
            }).find("nn::BatchNorm1d: expected input [N, 3] or [N, 3, L]"),
            std::string::npos);
  nn::GroupNorm gn(1, 3);
  EXPECT_THROW(gn(ones({2, 4, 5})), Error);
  nn::Conv1d conv(3, 4, 3);
  EXPECT_THROW(conv(ones({2, 5, 10})), Error);  // wrong channel count: the op's error
}

TEST(NnLayerModules, PrintedForms) {
  EXPECT_EQ(repr(nn::Conv1d(4, 6, 3, 2, 1, 1, 2)),
            "Conv1d(4, 6, kernel_size=(3,), stride=(2,), padding=(1,), groups=2)  # 42 parameters");
  EXPECT_EQ(repr(nn::ConvTranspose2d(2, 4, 3, 2, 1, 1, 1, false)),
            "ConvTranspose2d(2, 4, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), output_padding=(1, 1), "
            "bias=false)  # 72 parameters");
  EXPECT_EQ(repr(nn::AvgPool2d(3, 2, 1)), "AvgPool2d(kernel_size=3, stride=2, padding=1)");
  EXPECT_EQ(repr(nn::AdaptiveAvgPool2d({5, 7})), "AdaptiveAvgPool2d(output_size=(5, 7))");
  EXPECT_EQ(repr(nn::BatchNorm1d(3, 1e-5, std::nullopt)),
            "BatchNorm1d(3, eps=1e-05, momentum=None, affine=true, track_running_stats=true)  # 6 parameters");
  EXPECT_EQ(repr(nn::LayerNorm(8)), "LayerNorm((8,), eps=1e-05, elementwise_affine=true)  # 16 parameters");
  EXPECT_EQ(repr(nn::GroupNorm(2, 4, 1e-5, false)), "GroupNorm(2, 4, eps=1e-05, affine=false)");
  EXPECT_EQ(repr(nn::Embedding(10, 3, -1)), "Embedding(10, 3, padding_idx=9)  # 30 parameters");
  EXPECT_EQ(repr(nn::LeakyReLU(0.2)), "LeakyReLU(negative_slope=0.2)");
  EXPECT_EQ(repr(nn::ELU()), "ELU(alpha=1)");
  EXPECT_EQ(repr(nn::Softmax(-1)), "Softmax(dim=-1)");
  EXPECT_EQ(repr(nn::LogSoftmax(1)), "LogSoftmax(dim=1)");
  EXPECT_EQ(repr(nn::SiLU()), "SiLU()");
  EXPECT_EQ(repr(nn::Identity()), "Identity()");
  EXPECT_EQ(repr(nn::Unflatten(1, {2, 3})), "Unflatten(dim=1, unflattened_size=(2, 3))");
  EXPECT_EQ(repr(nn::CrossEntropyLoss(Tensor(), 3, "sum", 0.1)),
            "CrossEntropyLoss(reduction=sum, ignore_index=3, label_smoothing=0.1)");
  EXPECT_EQ(repr(nn::MSELoss()), "MSELoss()");
  EXPECT_EQ(repr(nn::KLDivLoss("batchmean", true)), "KLDivLoss(reduction=batchmean, log_target=true)");
}

TEST(NnLayerModules, BatchNormModesAndMomentum) {
  manual_seed(1);
  Tensor x = randn({16, 3}) * 2.0 + 1.0;
  nn::BatchNorm1d bn(3, 1e-5, std::nullopt);  // cumulative moving average
  bn(x);
  bn(x * 3.0);
  EXPECT_EQ(bn.num_batches_tracked.item<int64_t>(), 2);
  // After two batches the running mean is the plain average of both batch means.
  Tensor expected = (mean(x, {0}) + mean(x * 3.0, {0})) / 2.0;
  EXPECT_LT((bn.running_mean - expected).abs().max().item<double>(), 1e-5);
  bn.eval();
  Tensor y = bn(x);
  Tensor by_hand = (x - bn.running_mean) / (bn.running_var + 1e-5).sqrt();
  EXPECT_LT((y - by_hand).abs().max().item<double>(), 1e-5);
  EXPECT_EQ(bn.num_batches_tracked.item<int64_t>(), 2);  // eval does not count
  // Without tracking there are no buffers and eval uses batch statistics.
  nn::BatchNorm1d plain(3, 1e-5, 0.1, false, false);
  EXPECT_TRUE(plain.buffers().empty());
  EXPECT_TRUE(plain.parameters().empty());
  plain.eval();
  EXPECT_LT(mean(plain(x), {0}).abs().max().item<double>(), 1e-5);
  EXPECT_THROW(nn::BatchNorm1d(3)(ones({1, 3})), Error);  // one value per channel in training
}

TEST(NnLayerModules, EmbeddingFromPretrained) {
  Tensor table = arange(12, kFloat64).reshape({4, 3});
  nn::Embedding frozen = nn::Embedding::from_pretrained(table);
  EXPECT_EQ(frozen.weight.dtype(), kFloat64);
  EXPECT_FALSE(frozen.weight.requires_grad());
  EXPECT_FALSE(frozen.weight.is_same(table));  // a copy, as PyTorch's Parameter(embeddings)
  Tensor idx = tensor(std::vector<int64_t>{3, 0, 3}, {3}, kInt64);
  EXPECT_EQ(frozen(idx).to_vector<double>(), (std::vector<double>{9, 10, 11, 0, 1, 2, 9, 10, 11}));
  nn::Embedding trainable = nn::Embedding::from_pretrained(table, false, 0);
  EXPECT_TRUE(trainable.weight.requires_grad());
  EXPECT_EQ(trainable.padding_idx, 0);
  trainable(idx).sum().backward();
  EXPECT_EQ(sum(trainable.weight.grad(), {1}).to_vector<double>(), (std::vector<double>{0, 0, 0, 6}));
  EXPECT_THROW(nn::Embedding::from_pretrained(ones({3})), Error);
}

TEST(NnLayerModules, ToDeviceMovesOrExplains) {
  nn::Sequential net(nn::Linear(2, 3), nn::BatchNorm1d(3));
  Tensor w = net.parameters()[0];
  net.to(kCPU);
  EXPECT_TRUE(w.is_same(net.parameters()[0]));
  EXPECT_EQ(w.device(), kCPU);
  const Device absent = nabla::testing::absent_cuda_device();
  std::string err = error_of([&] { net.to(absent); });
  EXPECT_NE(err.find(absent.str() + " " + nabla::testing::absent_cuda_words()), std::string::npos) << err;
  EXPECT_NE(err.find(cuda::unavailable_reason()), std::string::npos) << err;
  EXPECT_EQ(w.device(), kCPU);  // nothing changed
  EXPECT_EQ(net(ones({4, 2})).sizes(), Shape({4, 3}));
}

TEST(NnLossModules, TwoInputForwardAndBuffers) {
  nn::CrossEntropyLoss ce(tensor(std::vector<float>{1, 2, 3}, {3}));
  EXPECT_TRUE(ce.state_dict().contains("weight"));
  Tensor logits = zeros({2, 3}), labels = tensor(std::vector<int64_t>{0, 2}, {2}, kInt64);
  EXPECT_NEAR(ce(logits, labels).item<double>(), std::log(3.0), 1e-6);
  EXPECT_NE(error_of([&] { static_cast<nn::Module&>(ce).forward(logits); }).find("forward(input, target)"),
            std::string::npos);
  nn::Loss& base = ce;  // usable polymorphically
  EXPECT_NEAR(base(logits, labels).item<double>(), std::log(3.0), 1e-6);
  ce.to(kFloat64);
  EXPECT_EQ(ce.weight.dtype(), kFloat64);
  EXPECT_NE(error_of([] { nn::MSELoss("avg"); }).find("nn::MSELoss: reduction must be"), std::string::npos);
  EXPECT_THROW(nn::L1Loss("batchmean"), Error);
  EXPECT_NO_THROW(nn::KLDivLoss("batchmean"));
  EXPECT_THROW(nn::HuberLoss("mean", 0.0), Error);
  EXPECT_THROW(nn::SmoothL1Loss("mean", -1.0), Error);
  EXPECT_THROW(nn::CrossEntropyLoss(Tensor(), -100, "mean", 1.5), Error);
  EXPECT_THROW(nn::NLLLoss(ones({2, 3})), Error);
  nn::BCEWithLogitsLoss bce(Tensor(), "sum", full({2}, 3.0));
  EXPECT_EQ(bce.named_buffers().size(), 1u);
  EXPECT_EQ(nn::MSELoss("none")(ones({2, 2}), zeros({2, 2})).sizes(), Shape({2, 2}));
}

}  // namespace

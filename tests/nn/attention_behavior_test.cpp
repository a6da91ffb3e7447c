// MultiheadAttention and the Transformer encoder: initialization, layouts,
// masks, dropout, encoder stacking, gradcheck and errors.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>

#include "nabla/nabla.h"
#include "tests/support/error_message.h"
#include "tests/support/op_info.h"

namespace {

using namespace nabla;
using nabla::testing::compare;
using nabla::testing::error_of;
using nabla::testing::expect_error;
using nabla::testing::Tensors;

TEST(MultiheadAttention, DefaultInitIsXavierWithZeroBiases) {
  manual_seed(1);
  nn::MultiheadAttention mha(64, 8);
  double bound = std::sqrt(6.0 / (64 + 192));  // xavier on [3E, E]
  std::vector<float> w = mha.in_proj_weight.to_vector<float>();
  double lo = 1, hi = -1, sq = 0;
  for (float f : w) lo = std::min<double>(lo, f), hi = std::max<double>(hi, f), sq += double(f) * f;
  EXPECT_GE(lo, -bound);
  EXPECT_LE(hi, bound);
  EXPECT_GT(hi, 0.95 * bound);
  EXPECT_NEAR(sq / w.size(), bound * bound / 3, 0.05 * bound * bound / 3);
  EXPECT_EQ(mha.in_proj_bias.abs().max().item<float>(), 0.0f);
  EXPECT_EQ(mha.out_proj->bias.abs().max().item<float>(), 0.0f);
  EXPECT_LE(mha.out_proj->weight.abs().max().item<float>(), 1.0 / 8.0);  // Linear's U(±1/sqrt(64))
  nn::MultiheadAttention kv(6, 2, {.kdim = 3, .vdim = 5});
  EXPECT_FALSE(kv.in_proj_weight.defined());
  EXPECT_EQ(kv.k_proj_weight.sizes(), Shape({6, 3}));
  EXPECT_EQ(kv.v_proj_weight.sizes(), Shape({6, 5}));
}

TEST(MultiheadAttention, LayoutsAgreeAndWeightsAreDistributions) {
  manual_seed(2);
  nn::MultiheadAttention mha(8, 2), mha_bf(8, 2, {.batch_first = true});
  mha_bf.load_state_dict(mha.state_dict());
  Tensor q = randn({3, 2, 8}), kv = randn({4, 2, 8});
  auto [out, w] = mha.forward(q, kv, kv);
  auto [out_bf, w_bf] = mha_bf.forward(q.transpose(0, 1), kv.transpose(0, 1), kv.transpose(0, 1));
  EXPECT_EQ(compare(out_bf.transpose(0, 1), out, 1e-6, 1e-6), "");
  EXPECT_EQ(compare(w_bf, w, 1e-6, 1e-6), "");
  EXPECT_EQ(w.sizes(), Shape({2, 3, 4}));
  EXPECT_EQ(compare(w.sum({2}), ones({2, 3}), 1e-6, 1e-6), "");
  auto [out1, w1] = mha.forward(q.select(1, 1), kv.select(1, 1), kv.select(1, 1), Tensor(), true, Tensor(), false);
  EXPECT_EQ(w1.sizes(), Shape({2, 3, 4}));  // unbatched, per head
  EXPECT_EQ(compare(out1, out.select(1, 1), 1e-6, 1e-6), "");
  EXPECT_EQ(compare(w1.mean({0}), w.select(0, 1), 1e-6, 1e-6), "");
  // Masked keys get zero weight; need_weights = false returns none.
  Tensor pad = cast(tensor(std::vector<int64_t>{0, 0, 1, 1, 0, 0, 0, 1}, {2, 4}), kBool);
  auto [out_m, w_m] = mha.forward(q, kv, kv, pad);
  EXPECT_EQ(w_m.narrow(2, 2, 2).select(0, 0).abs().max().item<float>(), 0.0f);
  EXPECT_EQ(w_m.narrow(2, 3, 1).select(0, 1).abs().max().item<float>(), 0.0f);
  EXPECT_FALSE(mha.forward(q, kv, kv, pad, false).weights.defined());
  EXPECT_EQ(compare(mha(q), mha.forward(q, q, q).output, 0, 0), "");
}

TEST(MultiheadAttention, DropoutOnWeightsInTrainingOnly) {
  manual_seed(3);
  nn::MultiheadAttention mha(8, 2, {.dropout = 0.5});
  Tensor x = randn({5, 3, 8});
  auto [out, w] = mha.forward(x, x, x);
  EXPECT_GT(cast(eq(w, zeros({1})), kFloat32).mean().item<float>(), 0.2f);
  mha.eval();
  auto [out_e, w_e] = mha.forward(x, x, x);
  EXPECT_EQ(compare(w_e.sum({2}), ones({3, 5}), 1e-6, 1e-6), "");
}

TEST(MultiheadAttention, GradcheckWithMasksInFloat64) {
  manual_seed(4);
  nn::MultiheadAttention mha(6, 3, {.kdim = 4, .vdim = 5});
  mha.to(kFloat64);
  Tensor mask = cast(tensor(std::vector<int64_t>{0, 1, 0, 0, 0, 0, 1, 0, 0}, {3, 3}), kBool);
  Tensor pad = cast(tensor(std::vector<int64_t>{0, 0, 1, 0, 0, 0}, {2, 3}), kBool);
  nabla::testing::OpInfo info;
  info.name = "mha";
  info.run = [&](const Tensors& t) -> Tensors {
    auto [out, w] = mha.forward(t[0], t[1], t[2], pad, true, mask, false);
    return {out, w};
  };
  auto s = [](IntList shape, uint64_t seed) { return nabla::testing::sample(shape, -1.0, 1.0, seed); };
  EXPECT_EQ(nabla::testing::gradcheck(info, {s({3, 2, 6}, 1), s({3, 2, 4}, 2), s({3, 2, 5}, 3)}), "");
}

TEST(MultiheadAttention, Errors) {
  expect_error(error_of([] { nn::MultiheadAttention(10, 3); }),
               {"nn::MultiheadAttention", "multiple of num_heads", "embed_dim=10", "num_heads=3"});
  nn::MultiheadAttention mha(8, 2);
  Tensor x = randn({3, 2, 8});
  expect_error(error_of([&] { mha.forward(randn({3, 2, 7}), x, x); }), {"nn::MultiheadAttention", "[3, 2, 7]"});
  expect_error(error_of([&] { mha.forward(x, randn({4, 2, 8}), x); }), {"nn::MultiheadAttention", "same sequence"});
  expect_error(error_of([&] {
                 mha.forward(x, x, x, Tensor(), true, zeros({3, 4}));
               }),
               {"nn::MultiheadAttention", "attn_mask", "[3, 4]"});
  expect_error(error_of([&] {
                 mha.forward(x, x, x, cast(zeros({3, 3}), kBool));
               }),
               {"nn::MultiheadAttention", "key_padding_mask", "[2, 3]", "[3, 3]"});
  expect_error(error_of([&] {
                 mha.forward(x, x, x, Tensor(), true, zeros({3, 3}, dtype(kInt64)));
               }),
               {"nn::MultiheadAttention", "attn_mask", "int64"});
  expect_error(error_of([] { nn::TransformerEncoderLayer(8, 2, {.activation = "tanh"}); }),
               {"nn::TransformerEncoderLayer", "tanh"});
}

TEST(TransformerEncoderLayer, DropoutInTrainingModeOnly) {
  manual_seed(6);
  nn::TransformerEncoderLayer layer(8, 2, {.dim_feedforward = 16, .dropout = 0.3});
  Tensor x = randn({4, 2, 8});
  Tensor a = layer(x), b = layer(x);
  EXPECT_NE(compare(a, b, 1e-6, 1e-6), "");  // fresh dropout masks
  layer.eval();
  EXPECT_EQ(compare(layer(x), layer(x), 0, 0), "");
  EXPECT_FALSE(layer.self_attn->is_training());  // eval() reaches the children
}

TEST(TransformerEncoder, CopiesTheLayerAndStacksIt) {
  manual_seed(5);
  nn::TransformerEncoderLayer layer(8, 2, {.dim_feedforward = 16, .dropout = 0.0, .batch_first = true});
  nn::TransformerEncoder enc(layer, 3, std::make_shared<nn::LayerNorm>(8));
  auto names = enc.state_dict().keys();
  EXPECT_EQ(names.front(), "layers.0.self_attn.in_proj_weight");
  EXPECT_EQ(names.back(), "norm.bias");
  EXPECT_EQ(enc.num_parameters(), 3 * layer.num_parameters() + 16);
  EXPECT_FALSE(enc.layers[1]->linear1->weight.is_same(layer.linear1->weight));  // copies, not shared
  Tensor x = randn({2, 5, 8});
  Tensor pad = cast(tensor(std::vector<int64_t>{0, 0, 0, 1, 1, 0, 0, 0, 0, 0}, {2, 5}), kBool);
  Tensor manual = x;
  for (int i = 0; i < 3; ++i) manual = layer.forward(manual, Tensor(), pad);
  manual = layer_norm(manual, {8});
  EXPECT_EQ(compare(enc.forward(x, Tensor(), pad), manual, 1e-5, 1e-5), "");
  enc.forward(x, Tensor(), pad).sum().backward();
  for (const auto& [n, p] : enc.named_parameters()) EXPECT_TRUE(p.grad().defined()) << n;
  std::ostringstream os;
  os << enc;
  EXPECT_NE(os.str().find("ModuleList"), std::string::npos) << os.str();
  EXPECT_NE(os.str().find("LayerNorm((8,), eps=1e-05"), std::string::npos) << os.str();
}

}  // namespace

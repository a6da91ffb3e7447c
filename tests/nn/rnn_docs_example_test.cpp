// The examples of docs/nn.md ("Recurrent and attention layers"), verbatim
// apart from the inputs and the checks, so the documentation cannot rot.
#include <gtest/gtest.h>

#include "nabla/nabla.h"

namespace {

using namespace nabla;

TEST(RnnDocs, RecurrentExamplesRunWithTheDocumentedShapes) {
  manual_seed(0);
  const int64_t T = 7, N = 3;
  Tensor x = randn({T, N, 10}), xb = randn({N, T, 10});
  Tensor h0 = zeros({4, N, 20}), c0 = zeros({4, N, 20});
  Tensor lengths = tensor(std::vector<int64_t>{7, 2, 5});

  nn::LSTM lstm(10, 20, {.num_layers = 2, .bidirectional = true});
  auto [out, h_n, c_n] = lstm.forward(x, {h0, c0});    // x [T, N, 10]: out [T, N, 40], h_n/c_n [4, N, 20]
  auto [out2, h2, c2] = lstm.forward(x, {}, lengths);  // zero initial state; lengths: int64 [N]
  nn::GRU gru(10, 20, {.batch_first = true});
  auto [y, h] = gru.forward(xb, Tensor(), lengths);  // xb [N, T, 10]; Tensor() = zero h0
  Tensor only_output = lstm(x);                      // the Module call: output, zero state

  EXPECT_EQ(out.sizes(), Shape({T, N, 40}));
  EXPECT_EQ(h_n.sizes(), Shape({4, N, 20}));
  EXPECT_EQ(c2.sizes(), Shape({4, N, 20}));
  EXPECT_EQ(y.sizes(), Shape({N, T, 20}));
  EXPECT_EQ(h.sizes(), Shape({1, N, 20}));
  EXPECT_EQ(only_output.sizes(), Shape({T, N, 40}));
  EXPECT_EQ(y.select(0, 1).narrow(0, 2, T - 2).abs().max().item<float>(), 0.0f);  // past length 2

  nn::LSTMCell cell(10, 20);
  nn::LSTMState s;  // zeros
  for (int64_t t = 0; t < x.size(0); ++t) s = cell.forward(x.select(0, t), s);
  EXPECT_EQ(s.c.sizes(), Shape({N, 20}));
}

TEST(RnnDocs, AttentionExamplesRunWithTheDocumentedShapes) {
  manual_seed(1);
  const int64_t N = 2, L = 3, S = 5;
  Tensor q = randn({N, L, 64}), k = randn({N, S, 64}), v = randn({N, S, 64});
  Tensor key_padding_mask = cast(zeros({N, S}), kBool), attn_mask = zeros({L, S});

  nn::MultiheadAttention mha(64, 8, {.batch_first = true});
  auto [out, weights] = mha.forward(q, k, v, key_padding_mask);  // out [N, L, 64], weights [N, L, S]
  auto [o2, w2] = mha.forward(q, k, v, Tensor(), true, attn_mask, /*average_attn_weights=*/false);  // [N, 8, L, S]

  EXPECT_EQ(out.sizes(), Shape({N, L, 64}));
  EXPECT_EQ(weights.sizes(), Shape({N, L, S}));
  EXPECT_EQ(w2.sizes(), Shape({N, 8, L, S}));

  nn::TransformerEncoderLayer layer(64, 8, {.dim_feedforward = 128, .batch_first = true, .norm_first = true});
  nn::TransformerEncoder encoder(layer, 2, std::make_shared<nn::LayerNorm>(64));
  EXPECT_EQ(encoder.forward(q, Tensor(), cast(zeros({N, L}), kBool)).sizes(), Shape({N, L, 64}));
}

}  // namespace

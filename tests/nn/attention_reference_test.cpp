// MultiheadAttention and TransformerEncoderLayer (eval mode) against PyTorch
// 1.13 in float64: outputs, attention weights, and the gradients of the
// inputs and every parameter. Values: tests/nn/rnn_reference_values.h.
#include <gtest/gtest.h>

#include <string>

#include "nabla/nabla.h"
#include "tests/nn/rnn_reference_values.h"
#include "tests/nn/rnn_test_util.h"

// gtest names a failing case by its name.
namespace nabla::nn::reference {
void PrintTo(const AttentionCase& c, std::ostream* os) { *os << c.name; }
void PrintTo(const EncoderLayerCase& c, std::ostream* os) { *os << c.name; }
}  // namespace nabla::nn::reference

namespace {

using namespace nabla;
namespace ref = nabla::nn::reference;
using nabla::nn::testing::expect_values;
using nabla::nn::testing::fill;

constexpr double kTol = 1e-10;

// The masks of make_rnn_reference.py: sequence n ignores its last n keys; the
// bool attention mask hides key s from query l when s > l + 1.
Tensor key_padding(int64_t N, int64_t S) {
  std::vector<int64_t> v;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t s = 0; s < S; ++s) v.push_back(s >= S - n);
  return cast(tensor(v, {N, S}), kBool);
}

Tensor attention_mask(const std::string& kind, int64_t L, int64_t S, int64_t NH = 0) {
  if (kind == "bool") {
    std::vector<int64_t> v;
    for (int64_t l = 0; l < L; ++l)
      for (int64_t s = 0; s < S; ++s) v.push_back(s > l + 1);
    return cast(tensor(v, {L, S}), kBool);
  }
  if (kind == "float") return fill({L, S}, ref::kFAttnMask);
  if (kind == "float3d") return fill({NH, L, S}, ref::kFAttnMask);
  return Tensor();
}

class AttentionReference : public ::testing::TestWithParam<ref::AttentionCase> {};

TEST_P(AttentionReference, MatchesPyTorch) {
  const ref::AttentionCase& c = GetParam();
  nn::MultiheadAttention mha(c.embed_dim, c.num_heads,
                             {.bias = c.bias, .batch_first = c.batch_first, .kdim = c.kdim, .vdim = c.vdim});
  mha.to(kFloat64);
  nn::testing::set_params(mha, ref::kParamScale);
  EXPECT_EQ(nn::testing::param_names(mha), c.param_names);
  int64_t kd = c.kdim ? c.kdim : c.embed_dim, vd = c.vdim ? c.vdim : c.embed_dim;
  auto shape = [&](int64_t len, int64_t d) { return c.batch_first ? Shape{c.N, len, d} : Shape{len, c.N, d}; };
  Tensor q = fill(shape(c.L, c.embed_dim), ref::kFInput).requires_grad_();
  Tensor k = fill(shape(c.S, kd), ref::kFKey).requires_grad_();
  Tensor v = fill(shape(c.S, vd), ref::kFValue).requires_grad_();
  auto [out, w] = mha.forward(q, k, v, c.key_padding_mask ? key_padding(c.N, c.S) : Tensor(), c.need_weights,
                              attention_mask(c.attn_mask, c.L, c.S, c.N * c.num_heads), c.average_attn_weights);
  expect_values(out, c.output, kTol, "output");
  expect_values(w, c.weights, kTol, "weights");
  Tensor loss = (out * fill(out.sizes(), ref::kFGradOut)).sum();
  if (w.defined()) loss = loss + (w * fill(w.sizes(), ref::kFGradW)).sum();
  loss.backward();
  expect_values(q.grad(), c.grad_query, kTol, "grad query");
  expect_values(k.grad(), c.grad_key, kTol, "grad key");
  expect_values(v.grad(), c.grad_value, kTol, "grad value");
  auto params = mha.named_parameters();
  ASSERT_EQ(params.size(), c.grad_params.size());
  for (std::size_t i = 0; i < params.size(); ++i)
    expect_values(params[i].second.grad(), c.grad_params[i], kTol, "grad " + params[i].first);
}

INSTANTIATE_TEST_SUITE_P(PyTorch, AttentionReference, ::testing::ValuesIn(ref::kAttentionCases),
                         [](const auto& info) { return std::string(info.param.name); });

class EncoderLayerReference : public ::testing::TestWithParam<ref::EncoderLayerCase> {};

TEST_P(EncoderLayerReference, MatchesPyTorchInEvalMode) {
  const ref::EncoderLayerCase& c = GetParam();
  nn::TransformerEncoderLayer layer(c.d_model, c.nhead,
                                    {.dim_feedforward = c.dim_feedforward,
                                     .activation = c.activation,
                                     .layer_norm_eps = c.layer_norm_eps,
                                     .batch_first = c.batch_first,
                                     .norm_first = c.norm_first});
  layer.to(kFloat64);
  layer.eval();
  nn::testing::set_params(layer, ref::kParamScale);
  EXPECT_EQ(nn::testing::param_names(layer), c.param_names);
  Tensor src =
      fill(c.batch_first ? Shape{c.N, c.S, c.d_model} : Shape{c.S, c.N, c.d_model}, ref::kFInput).requires_grad_();
  Tensor out =
      layer.forward(src, attention_mask(c.src_mask, c.S, c.S), c.key_padding_mask ? key_padding(c.N, c.S) : Tensor());
  expect_values(out, c.output, kTol, "output");
  (out * fill(out.sizes(), ref::kFGradOut)).sum().backward();
  expect_values(src.grad(), c.grad_src, kTol, "grad src");
  auto params = layer.named_parameters();
  ASSERT_EQ(params.size(), c.grad_params.size());
  for (std::size_t i = 0; i < params.size(); ++i)
    expect_values(params[i].second.grad(), c.grad_params[i], kTol, "grad " + params[i].first);
}

INSTANTIATE_TEST_SUITE_P(PyTorch, EncoderLayerReference, ::testing::ValuesIn(ref::kEncoderLayerCases),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace

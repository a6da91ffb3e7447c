// nn::MultiheadAttention (torch.nn.MultiheadAttention): scaled dot-product
// attention over num_heads heads, with PyTorch's parameters, masks and layout.
//
//   nn::MultiheadAttention mha(64, 8, {.batch_first = true});
//   auto [out, weights] = mha.forward(q, k, v, key_padding_mask);  // out [N, L, 64], weights [N, L, S]
//
// Parameters: in_proj_weight [3E, E] (xavier_uniform_) — or, when kdim/vdim
// differ from embed_dim, q_proj_weight [E, E], k_proj_weight [E, kdim],
// v_proj_weight [E, vdim] — then in_proj_bias [3E] (zeros) and the child
// out_proj (Linear(E, E), bias zeroed). bias = false drops both biases.
//
// Masks (true / -inf = "may not attend"):
//   key_padding_mask [N, S] (unbatched: [S]): bool, or float added to the scores;
//   attn_mask [L, S] or [N * num_heads, L, S]: bool, or float added to the scores.
// A query row whose keys are all masked gets NaN, as in PyTorch.
// Not supported: add_bias_kv, add_zero_attn.
#pragma once
#include <cstdint>
#include <memory>

#include "nabla/nn/linear.h"
#include "nabla/nn/module.h"

namespace nabla::nn {

struct MultiheadAttentionOptions {
  double dropout = 0.0;  // on the attention weights, in training mode
  bool bias = true;
  bool batch_first = false;  // query/key/value and output [N, L, E] instead of [L, N, E]
  int64_t kdim = 0;          // key features; 0 means embed_dim
  int64_t vdim = 0;          // value features; 0 means embed_dim
};

struct AttentionOutput {
  Tensor output;   // [L, N, E] (batch_first: [N, L, E]; unbatched: [L, E])
  Tensor weights;  // [N, L, S], or [N, num_heads, L, S] unaveraged; undefined unless need_weights
};

class MultiheadAttention : public Module {
 public:
  MultiheadAttention(int64_t embed_dim, int64_t num_heads, MultiheadAttentionOptions options = {});

  AttentionOutput forward(const Tensor& query, const Tensor& key, const Tensor& value,
                          const Tensor& key_padding_mask = Tensor(), bool need_weights = true,
                          const Tensor& attn_mask = Tensor(), bool average_attn_weights = true);
  // The plain Module call: self-attention of x, the output only.
  Tensor forward(const Tensor& x) override { return forward(x, x, x, Tensor(), false).output; }
  std::string extra_repr() const override;
  void reset_parameters();

  int64_t embed_dim, num_heads, head_dim, kdim, vdim;
  MultiheadAttentionOptions options;
  // in_proj_weight is defined when kdim == vdim == embed_dim; q/k/v_proj_weight otherwise.
  Tensor in_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight, in_proj_bias;
  std::shared_ptr<Linear> out_proj;
};

}  // namespace nabla::nn

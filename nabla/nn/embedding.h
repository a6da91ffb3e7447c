// Embedding (torch.nn.Embedding): a lookup table weight [num_embeddings,
// embedding_dim], initialized N(0, 1) with the padding_idx row zeroed.
// Input: int64/int32 indices of any shape; output indices.sizes() + [dim].
// The padding_idx row gets no gradient. max_norm, scale_grad_by_freq and
// sparse are not supported.
#pragma once
#include <optional>

#include "nabla/nn/module.h"

namespace nabla::nn {

class Embedding : public Module {
 public:
  // padding_idx may be negative (counted from the end, as PyTorch).
  Embedding(int64_t num_embeddings, int64_t embedding_dim, std::optional<int64_t> padding_idx = std::nullopt);
  // A layer whose weight is a copy of `embeddings` ([num, dim]); freeze = true
  // makes the weight not require grad.
  static Embedding from_pretrained(const Tensor& embeddings, bool freeze = true,
                                   std::optional<int64_t> padding_idx = std::nullopt);
  Tensor forward(const Tensor& indices) override;
  std::string extra_repr() const override;
  void reset_parameters();

  int64_t num_embeddings, embedding_dim;
  std::optional<int64_t> padding_idx;  // normalized to [0, num_embeddings)
  Tensor weight;
};

}  // namespace nabla::nn

// Embedding over nabla::embedding.
#include "nabla/nn/embedding.h"

#include "nabla/core/grad_mode.h"
#include "nabla/nn/init.h"
#include "nabla/ops/ops.h"

namespace nabla::nn {

Embedding::Embedding(int64_t num, int64_t dim, std::optional<int64_t> pad) : num_embeddings(num), embedding_dim(dim) {
  NABLA_CHECK(num > 0 && dim > 0, "nn::Embedding: num_embeddings and embedding_dim must be positive, got ", num,
              " and ", dim);
  if (pad) {
    NABLA_CHECK(*pad >= -num && *pad < num, "nn::Embedding: padding_idx must be within [", -num, ", ", num, "), got ",
                *pad);
    padding_idx = *pad < 0 ? *pad + num : *pad;
  }
  weight = register_parameter("weight", empty({num, dim}));
  reset_parameters();
}

void Embedding::reset_parameters() {
  init::normal_(weight);
  if (!padding_idx) return;
  NoGradGuard g;
  weight.select(0, *padding_idx).zero_();
}

Embedding Embedding::from_pretrained(const Tensor& embeddings, bool freeze, std::optional<int64_t> pad) {
  NABLA_CHECK(embeddings.defined() && embeddings.dim() == 2 && embeddings.is_floating_point(),
              "nn::Embedding::from_pretrained: expected a 2-D floating tensor [num_embeddings, embedding_dim], got ",
              embeddings.defined() ? detail::concat("shape ", embeddings.sizes(), " of dtype ", embeddings.dtype())
                                   : std::string("an undefined tensor"));
  Embedding e(embeddings.size(0), embeddings.size(1), pad);
  e.to(embeddings.dtype());  // the table keeps the given dtype, as PyTorch's
  {
    NoGradGuard g;
    e.weight.copy_(embeddings);  // PyTorch keeps the padding row as given here
  }
  e.weight.requires_grad_(!freeze);
  return e;
}

Tensor Embedding::forward(const Tensor& indices) { return embedding(indices, weight, padding_idx.value_or(-1)); }

std::string Embedding::extra_repr() const {
  std::string s = detail::concat(num_embeddings, ", ", embedding_dim);
  if (padding_idx) s += detail::concat(", padding_idx=", *padding_idx);
  return s;
}

}  // namespace nabla::nn

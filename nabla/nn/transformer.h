// nn::TransformerEncoderLayer and nn::TransformerEncoder
// (torch.nn.TransformerEncoderLayer / TransformerEncoder): self-attention and a
// feed-forward block, each with a residual connection and layer norm, after
// (norm_first = false, the original Transformer) or before (norm_first = true)
// the block.
//
//   nn::TransformerEncoderLayer layer(512, 8, {.dim_feedforward = 2048, .batch_first = true});
//   nn::TransformerEncoder encoder(layer, 6);          // 6 copies of layer's weights
//   Tensor y = encoder.forward(x, Tensor(), padding);  // src_mask, src_key_padding_mask
//
// Parameter names as PyTorch: self_attn.*, linear1.*, linear2.*, norm1.*,
// norm2.* (and layers.{i}.* in an encoder, plus norm.* when given one).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nabla/nn/activation.h"
#include "nabla/nn/attention.h"
#include "nabla/nn/container.h"
#include "nabla/nn/linear.h"
#include "nabla/nn/module.h"
#include "nabla/nn/normalization.h"

namespace nabla::nn {

struct TransformerEncoderLayerOptions {
  int64_t dim_feedforward = 2048;
  double dropout = 0.1;
  std::string activation = "relu";  // "relu" or "gelu"
  double layer_norm_eps = 1e-5;
  bool batch_first = false;  // src [N, S, E] instead of [S, N, E]
  bool norm_first = false;
};

class TransformerEncoderLayer : public Module {
 public:
  TransformerEncoderLayer(int64_t d_model, int64_t nhead, TransformerEncoderLayerOptions options = {});
  // src_mask [S, S] or [N * nhead, S, S]; src_key_padding_mask [N, S]; either
  // may be undefined; bool (true = masked) or float (added to the scores).
  Tensor forward(const Tensor& src, const Tensor& src_mask, const Tensor& src_key_padding_mask = Tensor());
  Tensor forward(const Tensor& src) override { return forward(src, Tensor(), Tensor()); }

  int64_t d_model, nhead;
  TransformerEncoderLayerOptions options;
  std::shared_ptr<MultiheadAttention> self_attn;
  std::shared_ptr<Linear> linear1;
  std::shared_ptr<Dropout> dropout;
  std::shared_ptr<Linear> linear2;
  std::shared_ptr<LayerNorm> norm1, norm2;
  std::shared_ptr<Dropout> dropout1, dropout2;
};

// num_layers independent copies of `layer` (same options, same initial
// weights, like PyTorch's deep copies), run in order, then `norm` if given.
class TransformerEncoder : public Module {
 public:
  TransformerEncoder(const TransformerEncoderLayer& layer, int64_t num_layers,
                     std::shared_ptr<LayerNorm> norm = nullptr);
  Tensor forward(const Tensor& src, const Tensor& mask, const Tensor& src_key_padding_mask = Tensor());
  Tensor forward(const Tensor& src) override { return forward(src, Tensor(), Tensor()); }

  std::vector<std::shared_ptr<TransformerEncoderLayer>> layers;  // also the children "layers.{i}" (a ModuleList)
  std::shared_ptr<LayerNorm> norm;
};

}  // namespace nabla::nn

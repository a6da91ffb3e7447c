// TransformerEncoderLayer and TransformerEncoder, following PyTorch 1.13's
// forward (the general path; its inference fast path computes the same).
#include "nabla/nn/transformer.h"

#include "nabla/nn/init.h"
#include "nabla/ops/ops.h"

namespace nabla::nn {

TransformerEncoderLayer::TransformerEncoderLayer(int64_t d_model, int64_t nhead, TransformerEncoderLayerOptions opts)
    : d_model(d_model), nhead(nhead), options(std::move(opts)) {
  NABLA_CHECK(options.activation == "relu" || options.activation == "gelu",
              "nn::TransformerEncoderLayer: activation must be \"relu\" or \"gelu\", got \"", options.activation, "\"");
  NABLA_CHECK(options.dim_feedforward > 0, "nn::TransformerEncoderLayer: dim_feedforward must be positive, got ",
              options.dim_feedforward);
  self_attn = register_module(
      "self_attn",
      std::make_shared<MultiheadAttention>(
          d_model, nhead, MultiheadAttentionOptions{.dropout = options.dropout, .batch_first = options.batch_first}));
  linear1 = register_module("linear1", std::make_shared<Linear>(d_model, options.dim_feedforward));
  dropout = register_module("dropout", std::make_shared<Dropout>(options.dropout));
  linear2 = register_module("linear2", std::make_shared<Linear>(options.dim_feedforward, d_model));
  norm1 = register_module("norm1", std::make_shared<LayerNorm>(d_model, options.layer_norm_eps));
  norm2 = register_module("norm2", std::make_shared<LayerNorm>(d_model, options.layer_norm_eps));
  dropout1 = register_module("dropout1", std::make_shared<Dropout>(options.dropout));
  dropout2 = register_module("dropout2", std::make_shared<Dropout>(options.dropout));
}

Tensor TransformerEncoderLayer::forward(const Tensor& src, const Tensor& src_mask, const Tensor& src_key_padding_mask) {
  auto self_attention = [&](const Tensor& x) {
    return dropout1->forward(self_attn->forward(x, x, x, src_key_padding_mask, false, src_mask).output);
  };
  auto feed_forward = [&](const Tensor& x) {
    Tensor h = linear1->forward(x);
    h = options.activation == "relu" ? h.relu() : gelu(h);
    return dropout2->forward(linear2->forward(dropout->forward(h)));
  };
  Tensor x = src;
  if (options.norm_first) {
    x = x + self_attention(norm1->forward(x));
    x = x + feed_forward(norm2->forward(x));
  } else {
    x = norm1->forward(x + self_attention(x));
    x = norm2->forward(x + feed_forward(x));
  }
  return x;
}

TransformerEncoder::TransformerEncoder(const TransformerEncoderLayer& layer, int64_t num_layers,
                                       std::shared_ptr<LayerNorm> final_norm) {
  NABLA_CHECK(num_layers > 0, "nn::TransformerEncoder: num_layers must be positive, got ", num_layers);
  auto list = register_module("layers", std::make_shared<ModuleList>());
  StateDict weights = layer.state_dict();
  for (int64_t i = 0; i < num_layers; ++i) {
    auto copy = std::make_shared<TransformerEncoderLayer>(layer.d_model, layer.nhead, layer.options);
    copy->to(layer.linear1->weight.dtype());
    copy->load_state_dict(weights);
    copy->train(layer.is_training());
    list->append(copy);
    layers.push_back(copy);
  }
  if (final_norm) norm = register_module("norm", std::move(final_norm));
}

Tensor TransformerEncoder::forward(const Tensor& src, const Tensor& mask, const Tensor& src_key_padding_mask) {
  Tensor x = src;
  for (auto& layer : layers) x = layer->forward(x, mask, src_key_padding_mask);
  return norm ? norm->forward(x) : x;
}

}  // namespace nabla::nn

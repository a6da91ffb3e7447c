// MultiheadAttention: in-projection, per-head scaled dot products, masks,
// softmax, (dropout), weighted values, out-projection — PyTorch 1.13's
// multi_head_attention_forward, op for op.
#include "nabla/nn/attention.h"

#include <cmath>
#include <limits>

#include "nabla/nn/init.h"
#include "nabla/ops/ops.h"

namespace nabla::nn {

MultiheadAttention::MultiheadAttention(int64_t embed_dim, int64_t num_heads, MultiheadAttentionOptions opts)
    : embed_dim(embed_dim), num_heads(num_heads), options(opts) {
  NABLA_CHECK(embed_dim > 0 && num_heads > 0 && embed_dim % num_heads == 0,
              "nn::MultiheadAttention: embed_dim must be a positive multiple of num_heads, got embed_dim=", embed_dim,
              " num_heads=", num_heads);
  NABLA_CHECK(options.dropout >= 0.0 && options.dropout <= 1.0,
              "nn::MultiheadAttention: dropout must be in [0, 1], got ", options.dropout);
  NABLA_CHECK(options.kdim >= 0 && options.vdim >= 0, "nn::MultiheadAttention: kdim and vdim must be positive, got ",
              options.kdim, " and ", options.vdim);
  head_dim = embed_dim / num_heads;
  kdim = options.kdim ? options.kdim : embed_dim;
  vdim = options.vdim ? options.vdim : embed_dim;
  if (kdim == embed_dim && vdim == embed_dim) {
    in_proj_weight = register_parameter("in_proj_weight", empty({3 * embed_dim, embed_dim}));
  } else {
    q_proj_weight = register_parameter("q_proj_weight", empty({embed_dim, embed_dim}));
    k_proj_weight = register_parameter("k_proj_weight", empty({embed_dim, kdim}));
    v_proj_weight = register_parameter("v_proj_weight", empty({embed_dim, vdim}));
  }
  if (options.bias) in_proj_bias = register_parameter("in_proj_bias", empty({3 * embed_dim}));
  out_proj = register_module("out_proj", std::make_shared<Linear>(embed_dim, embed_dim, options.bias));
  reset_parameters();
}

// PyTorch's _reset_parameters; out_proj.weight keeps Linear's own init.
void MultiheadAttention::reset_parameters() {
  if (in_proj_weight.defined()) {
    init::xavier_uniform_(in_proj_weight);
  } else {
    init::xavier_uniform_(q_proj_weight);
    init::xavier_uniform_(k_proj_weight);
    init::xavier_uniform_(v_proj_weight);
  }
  if (in_proj_bias.defined()) {
    init::zeros_(in_proj_bias);
    init::zeros_(out_proj->bias);
  }
}

std::string MultiheadAttention::extra_repr() const {
  std::string s = nabla::detail::concat("embed_dim=", embed_dim, ", num_heads=", num_heads);
  if (options.dropout != 0.0) s += nabla::detail::concat(", dropout=", options.dropout);
  if (!options.bias) s += ", bias=false";
  if (options.batch_first) s += ", batch_first=true";
  if (kdim != embed_dim || vdim != embed_dim) s += nabla::detail::concat(", kdim=", kdim, ", vdim=", vdim);
  return s;
}

namespace {

constexpr const char* kApi = "nn::MultiheadAttention";

// A mask as scores to add: bool true -> -inf, false -> 0; float as it is.
Tensor additive(const Tensor& mask, DType dtype, const char* what) {
  if (mask.dtype() == kBool)
    return masked_fill(zeros(mask.sizes(), nabla::dtype(dtype)), mask, -std::numeric_limits<double>::infinity());
  NABLA_CHECK(mask.dtype() == dtype, kApi, ": ", what, " must be bool or of the query's dtype ", dtype, ", got ",
              mask.dtype());
  return mask;
}

}  // namespace

AttentionOutput MultiheadAttention::forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                            const Tensor& key_padding_mask, bool need_weights, const Tensor& attn_mask,
                                            bool average_attn_weights) {
  NABLA_CHECK(query.defined() && key.defined() && value.defined(), kApi, ": query, key and value must be defined");
  bool batched = query.dim() == 3;
  NABLA_CHECK((query.dim() == 3 || query.dim() == 2) && key.dim() == query.dim() && value.dim() == query.dim(), kApi,
              ": query, key and value must all be 3-D (batched) or all 2-D (unbatched), got ", query.sizes(), ", ",
              key.sizes(), ", ", value.sizes());
  NABLA_CHECK(query.size(-1) == embed_dim && key.size(-1) == kdim && value.size(-1) == vdim, kApi,
              ": expected feature sizes query ", embed_dim, ", key ", kdim, ", value ", vdim, "; got query ",
              query.sizes(), ", key ", key.sizes(), ", value ", value.sizes());
  DType dt = in_proj_weight.defined() ? in_proj_weight.dtype() : q_proj_weight.dtype();
  NABLA_CHECK(query.dtype() == dt && key.dtype() == dt && value.dtype() == dt, kApi,
              ": query, key and value must have the parameters' dtype ", dt, ", got ", query.dtype(), ", ", key.dtype(),
              ", ", value.dtype());
  // Work in [L, N, E].
  auto layout = [&](const Tensor& t) {
    return !batched ? t.unsqueeze(1) : options.batch_first ? t.transpose(0, 1) : t;
  };
  Tensor q_in = layout(query), k_in = layout(key), v_in = layout(value);
  const int64_t L = q_in.size(0), N = q_in.size(1), S = k_in.size(0), E = embed_dim, H = num_heads;
  NABLA_CHECK(k_in.size(0) == v_in.size(0) && k_in.size(1) == N && v_in.size(1) == N, kApi,
              ": key and value must have the same sequence length and the query's batch size; got query ",
              query.sizes(), ", key ", key.sizes(), ", value ", value.sizes());

  auto bias_part = [&](int64_t i) { return in_proj_bias.defined() ? in_proj_bias.narrow(0, i * E, E) : Tensor(); };
  Tensor wq = in_proj_weight.defined() ? in_proj_weight.narrow(0, 0, E) : q_proj_weight;
  Tensor wk = in_proj_weight.defined() ? in_proj_weight.narrow(0, E, E) : k_proj_weight;
  Tensor wv = in_proj_weight.defined() ? in_proj_weight.narrow(0, 2 * E, E) : v_proj_weight;
  // [len, N, E] -> [N * H, len, head_dim]; batch index n * H + h.
  auto heads = [&](const Tensor& t, int64_t len) { return t.reshape({len, N * H, head_dim}).transpose(0, 1); };
  Tensor q = heads(linear(q_in, wq, bias_part(0)), L);
  Tensor k = heads(linear(k_in, wk, bias_part(1)), S);
  Tensor v = heads(linear(v_in, wv, bias_part(2)), S);

  Tensor scores = bmm(q / std::sqrt(static_cast<double>(head_dim)), k.transpose(1, 2));  // [N*H, L, S]
  if (attn_mask.defined()) {
    bool ok = (attn_mask.dim() == 2 && attn_mask.sizes() == Shape{L, S}) ||
              (attn_mask.dim() == 3 && attn_mask.sizes() == Shape{N * H, L, S});
    NABLA_CHECK(ok, kApi, ": attn_mask must be [L, S] = [", L, ", ", S, "] or [N * num_heads, L, S] = [", N * H, ", ",
                L, ", ", S, "], got ", attn_mask.sizes());
    scores = scores + additive(attn_mask, dt, "attn_mask");
  }
  if (key_padding_mask.defined()) {
    Shape want = batched ? Shape{N, S} : Shape{S};
    NABLA_CHECK(key_padding_mask.sizes() == want, kApi, ": key_padding_mask must be ", want, " (N, S), got ",
                key_padding_mask.sizes());
    Tensor m = additive(key_padding_mask, dt, "key_padding_mask").reshape({N, 1, 1, S});
    scores = scores + m.expand({N, H, 1, S}).reshape({N * H, 1, S});
  }
  Tensor attn = softmax(scores, -1);
  if (options.dropout > 0.0 && is_training()) attn = dropout(attn, options.dropout, true);

  Tensor out = bmm(attn, v).transpose(0, 1).reshape({L, N, E});
  out = out_proj->forward(out);
  AttentionOutput r{out, Tensor()};
  if (need_weights) {
    r.weights = attn.reshape({N, H, L, S});
    if (average_attn_weights) r.weights = r.weights.sum({1}) / static_cast<double>(H);
    if (!batched) r.weights = r.weights.squeeze(0);
  }
  if (!batched)
    r.output = r.output.squeeze(1);
  else if (options.batch_first)
    r.output = r.output.transpose(0, 1);
  return r;
}

}  // namespace nabla::nn

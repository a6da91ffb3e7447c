// RNN, LSTM, GRU: the loop over layers, directions and time steps, with the
// masking that lets one batch hold sequences of different lengths.
#include "nabla/nn/rnn.h"

#include <algorithm>
#include <cmath>

#include "nabla/nn/init.h"
#include "nabla/ops/ops.h"

namespace nabla::nn {

RNNBase::RNNBase(RNNMode mode, int64_t input_size, int64_t hidden_size, RNNOptions opts, const char* api)
    : input_size(input_size), hidden_size(hidden_size), options(std::move(opts)), mode_(mode), api_(api) {
  NABLA_CHECK(input_size > 0 && hidden_size > 0 && options.num_layers > 0, api,
              ": input_size, hidden_size and num_layers must be positive, got ", input_size, ", ", hidden_size, " and ",
              options.num_layers);
  NABLA_CHECK(mode == RNNMode::kTanh || mode == RNNMode::kReLU || options.nonlinearity == "tanh", api,
              ": nonlinearity is an option of nn::RNN only, got \"", options.nonlinearity, "\"");
  NABLA_CHECK(
      options.proj_size == 0 || (mode == RNNMode::kLSTM && options.proj_size > 0 && options.proj_size < hidden_size),
      api, ": proj_size (nn::LSTM only) must be 0 or in [1, hidden_size) = [1, ", hidden_size, "), got ",
      options.proj_size);
  NABLA_CHECK(options.dropout >= 0.0 && options.dropout <= 1.0, api, ": dropout must be in [0, 1], got ",
              options.dropout);
  int64_t gates = rnn_gate_count(mode) * hidden_size, dirs = num_directions(), out = output_size();
  for (int64_t layer = 0; layer < options.num_layers; ++layer) {
    int64_t in = layer == 0 ? input_size : dirs * out;
    for (int64_t d = 0; d < dirs; ++d) {
      std::string suffix = "_l" + std::to_string(layer) + (d ? "_reverse" : "");
      std::vector<Tensor> w{register_parameter("weight_ih" + suffix, empty({gates, in})),
                            register_parameter("weight_hh" + suffix, empty({gates, out})), Tensor(), Tensor(),
                            Tensor()};
      if (options.bias) {
        w[2] = register_parameter("bias_ih" + suffix, empty({gates}));
        w[3] = register_parameter("bias_hh" + suffix, empty({gates}));
      }
      if (options.proj_size) w[4] = register_parameter("weight_hr" + suffix, empty({out, hidden_size}));
      weights_.push_back(std::move(w));
    }
  }
  reset_parameters();
}

void RNNBase::reset_parameters() {
  double b = 1.0 / std::sqrt(static_cast<double>(hidden_size));
  for (Tensor& p : parameters()) init::uniform_(p, -b, b);
}

const std::vector<Tensor>& RNNBase::layer_weights(int64_t layer, int64_t direction) const {
  NABLA_CHECK(layer >= 0 && layer < options.num_layers && direction >= 0 && direction < num_directions(), api_,
              "::layer_weights: no layer ", layer, " direction ", direction, " (num_layers=", options.num_layers,
              ", directions=", num_directions(), ")");
  return weights_[layer * num_directions() + direction];
}

std::string RNNBase::extra_repr() const {
  std::string s = nabla::detail::concat(input_size, ", ", hidden_size);
  if (options.num_layers != 1) s += nabla::detail::concat(", num_layers=", options.num_layers);
  if (mode_ == RNNMode::kReLU) s += ", nonlinearity='relu'";
  if (!options.bias) s += ", bias=false";
  if (options.batch_first) s += ", batch_first=true";
  if (options.dropout != 0.0) s += nabla::detail::concat(", dropout=", options.dropout);
  if (options.bidirectional) s += ", bidirectional=true";
  if (options.proj_size) s += nabla::detail::concat(", proj_size=", options.proj_size);
  return s;
}

Tensor RNNBase::forward(const Tensor& input) { return run(input, LSTMState{}, Tensor()).output; }

namespace {

// Checks lengths against the batch and returns them on the host.
std::vector<int64_t> checked_lengths(const Tensor& lengths, int64_t T, int64_t N, bool batched, const char* api) {
  NABLA_CHECK(batched, api, ": lengths need a batched input [T, N, *] (or [N, T, *] with batch_first)");
  NABLA_CHECK(lengths.dim() == 1 && lengths.size(0) == N && (lengths.dtype() == kInt64 || lengths.dtype() == kInt32),
              api, ": lengths must be an int32/int64 tensor of shape [", N, "] (one per sequence), got ",
              lengths.dtype(), " ", lengths.sizes());
  std::vector<int64_t> len = lengths.to_vector<int64_t>();
  for (std::size_t i = 0; i < len.size(); ++i)
    NABLA_CHECK(len[i] >= 1 && len[i] <= T, api, ": lengths[", i, "] = ", len[i], " is outside [1, ", T,
                "] (T = the input's sequence length)");
  return len;
}

// The T steps of x [T, ...] as separate tensors. The gradient of a select or
// narrow is a zero tensor of its input's full size holding the piece, so
// taking T selects of one tensor would cost O(T^2) in backward; halving the
// range recursively makes it O(T log T). Without autograd plain selects do.
void split_steps(const Tensor& x, int64_t offset, std::vector<Tensor>& out) {
  int64_t n = x.size(0);
  if (!x.requires_grad() || n == 1) {
    for (int64_t t = 0; t < n; ++t) out[offset + t] = x.select(0, t);
    return;
  }
  split_steps(x.narrow(0, 0, n / 2), offset, out);
  split_steps(x.narrow(0, n / 2, n - n / 2), offset + n / 2, out);
}

}  // namespace

LSTMOutput RNNBase::run(const Tensor& input, const LSTMState& state, const Tensor& lengths) {
  NABLA_CHECK(input.defined() && (input.dim() == 2 || input.dim() == 3) && input.size(-1) == input_size, api_,
              ": expected input of shape [T, N, ", input_size, "] (batch_first: [N, T, ", input_size,
              "]; unbatched: [T, ", input_size, "]), got ", input.defined() ? input.sizes() : Shape{});
  NABLA_CHECK(input.dtype() == weights_[0][0].dtype(), api_, ": input has dtype ", input.dtype(),
              " but the parameters have dtype ", weights_[0][0].dtype());
  bool batched = input.dim() == 3;
  Tensor x = !batched ? input.unsqueeze(1) : options.batch_first ? input.transpose(0, 1) : input;
  const int64_t T = x.size(0), N = x.size(1), D = num_directions(), L = options.num_layers;
  NABLA_CHECK(T > 0 && N > 0, api_, ": the input has no time steps or no sequences: ", input.sizes());
  bool lstm = mode_ == RNNMode::kLSTM;

  // h has output_size() features (proj_size when projecting), c hidden_size.
  auto initial = [&](const Tensor& s, const char* what, int64_t H) {
    if (!s.defined()) return zeros({L * D, N, H}, dtype(x.dtype()));
    Shape want = batched ? Shape{L * D, N, H} : Shape{L * D, H};
    NABLA_CHECK(s.sizes() == want && s.dtype() == x.dtype(), api_, ": expected ", what, " of shape ", want,
                " (num_layers * num_directions, N, features) and dtype ", x.dtype(), ", got ", s.sizes(), " ",
                s.dtype());
    return batched ? s : s.unsqueeze(1);
  };
  Tensor h0 = initial(state.h, "h0", output_size());
  Tensor c0 = lstm ? initial(state.c, "c0", hidden_size) : Tensor();

  // valid[t]: bool [N, 1], true where step t is inside the sequence. Only the
  // steps in [min length, max length) need one; later steps are skipped.
  int64_t min_len = T, max_len = T;
  std::vector<Tensor> valid;
  if (lengths.defined()) {
    std::vector<int64_t> len = checked_lengths(lengths, T, N, batched, api_);
    min_len = *std::min_element(len.begin(), len.end());
    max_len = *std::max_element(len.begin(), len.end());
    Tensor lens = tensor(len, {N, 1});
    valid.resize(T);
    for (int64_t t = min_len; t < max_len; ++t) valid[t] = gt(lens, scalar_tensor(t, dtype(kInt64)));
  }
  Tensor zero_step = zeros({N, output_size()}, dtype(x.dtype()));

  std::vector<Tensor> h_n, c_n;
  for (int64_t layer = 0; layer < L; ++layer) {
    std::vector<Tensor> direction_outputs;
    for (int64_t d = 0; d < D; ++d) {
      const std::vector<Tensor>& w = weights_[layer * D + d];
      std::vector<Tensor> x_gates(T);  // every step's input projection, in one matrix product
      split_steps(linear(x, w[0], w[2]), 0, x_gates);
      LSTMState s{h0.select(0, layer * D + d), lstm ? c0.select(0, layer * D + d) : Tensor()};
      std::vector<Tensor> out(T);
      for (int64_t i = 0; i < T; ++i) {
        int64_t t = d == 0 ? i : T - 1 - i;
        if (t >= max_len) {  // past every sequence's end
          out[t] = zero_step;
          continue;
        }
        LSTMState next = rnn_step(mode_, x_gates[t], s, w[1], w[3]);
        if (w[4].defined()) next.h = linear(next.h, w[4]);  // h = W_hr (o * tanh(c))
        // Past min_len some sequences have ended: they keep their state and output zeros.
        if (t >= min_len) {
          const Tensor& m = valid[t];
          out[t] = where(m, next.h, zero_step);
          s = {where(m, next.h, s.h), lstm ? where(m, next.c, s.c) : Tensor()};
        } else {
          out[t] = next.h;
          s = next;
        }
      }
      h_n.push_back(s.h);
      if (lstm) c_n.push_back(s.c);
      direction_outputs.push_back(stack(out, 0));
    }
    x = D == 1 ? direction_outputs[0] : cat(direction_outputs, 2);
    if (layer + 1 < L && options.dropout > 0.0 && is_training()) x = dropout(x, options.dropout, true);
  }

  LSTMOutput r{x, stack(h_n, 0), lstm ? stack(c_n, 0) : Tensor()};
  if (!batched) {
    r.output = r.output.squeeze(1);
    r.h_n = r.h_n.squeeze(1);
    if (lstm) r.c_n = r.c_n.squeeze(1);
  } else if (options.batch_first) {
    r.output = r.output.transpose(0, 1);
  }
  return r;
}

static RNNMode rnn_mode(const std::string& nonlinearity) {
  NABLA_CHECK(nonlinearity == "tanh" || nonlinearity == "relu",
              "nn::RNN: nonlinearity must be \"tanh\" or \"relu\", got \"", nonlinearity, "\"");
  return nonlinearity == "tanh" ? RNNMode::kTanh : RNNMode::kReLU;
}

RNN::RNN(int64_t input_size, int64_t hidden_size, RNNOptions options)
    : RNNBase(rnn_mode(options.nonlinearity), input_size, hidden_size, options, "nn::RNN") {}
RNNOutput RNN::forward(const Tensor& input, const Tensor& h0, const Tensor& lengths) {
  LSTMOutput r = run(input, {h0, Tensor()}, lengths);
  return {r.output, r.h_n};
}

LSTM::LSTM(int64_t input_size, int64_t hidden_size, RNNOptions options)
    : RNNBase(RNNMode::kLSTM, input_size, hidden_size, std::move(options), "nn::LSTM") {}
LSTMOutput LSTM::forward(const Tensor& input, const LSTMState& state, const Tensor& lengths) {
  return run(input, state, lengths);
}

GRU::GRU(int64_t input_size, int64_t hidden_size, RNNOptions options)
    : RNNBase(RNNMode::kGRU, input_size, hidden_size, std::move(options), "nn::GRU") {}
RNNOutput GRU::forward(const Tensor& input, const Tensor& h0, const Tensor& lengths) {
  LSTMOutput r = run(input, {h0, Tensor()}, lengths);
  return {r.output, r.h_n};
}

}  // namespace nabla::nn

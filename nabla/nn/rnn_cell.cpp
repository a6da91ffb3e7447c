// The recurrence step (shared with RNN/LSTM/GRU) and the single-step cells.
#include "nabla/nn/rnn_cell.h"

#include <cmath>

#include "nabla/nn/init.h"
#include "nabla/ops/ops.h"

namespace nabla::nn {

int64_t rnn_gate_count(RNNMode mode) {
  switch (mode) {
    case RNNMode::kLSTM:
      return 4;
    case RNNMode::kGRU:
      return 3;
    default:
      return 1;
  }
}

LSTMState rnn_step(RNNMode mode, const Tensor& x_gates, const LSTMState& state, const Tensor& w_hh,
                   const Tensor& b_hh) {
  Tensor h_gates = linear(state.h, w_hh, b_hh);
  switch (mode) {
    case RNNMode::kTanh:
      return {(x_gates + h_gates).tanh(), Tensor()};
    case RNNMode::kReLU:
      return {(x_gates + h_gates).relu(), Tensor()};
    case RNNMode::kLSTM: {
      std::vector<Tensor> g = chunk(x_gates + h_gates, 4, 1);  // i, f, g, o
      Tensor c = g[1].sigmoid() * state.c + g[0].sigmoid() * g[2].tanh();
      return {g[3].sigmoid() * c.tanh(), c};
    }
    case RNNMode::kGRU: {
      // r and z see the summed projections; n sees r * (W_hn h + b_hn) only.
      std::vector<Tensor> xg = chunk(x_gates, 3, 1), hg = chunk(h_gates, 3, 1);
      Tensor r = (xg[0] + hg[0]).sigmoid();
      Tensor z = (xg[1] + hg[1]).sigmoid();
      Tensor n = (xg[2] + r * hg[2]).tanh();
      return {n + z * (state.h - n), Tensor()};  // (1 - z) * n + z * h
    }
  }
  return {};
}

RNNCellBase::RNNCellBase(RNNMode mode, int64_t input_size, int64_t hidden_size, bool bias, const char* api)
    : input_size(input_size), hidden_size(hidden_size), mode_(mode), api_(api) {
  NABLA_CHECK(input_size > 0 && hidden_size > 0, api, ": input_size and hidden_size must be positive, got ", input_size,
              " and ", hidden_size);
  int64_t g = rnn_gate_count(mode) * hidden_size;
  weight_ih = register_parameter("weight_ih", empty({g, input_size}));
  weight_hh = register_parameter("weight_hh", empty({g, hidden_size}));
  if (bias) {
    bias_ih = register_parameter("bias_ih", empty({g}));
    bias_hh = register_parameter("bias_hh", empty({g}));
  }
  reset_parameters();
}

void RNNCellBase::reset_parameters() {
  double b = 1.0 / std::sqrt(static_cast<double>(hidden_size));
  for (Tensor& p : parameters()) init::uniform_(p, -b, b);
}

std::string RNNCellBase::extra_repr() const {
  std::string s = nabla::detail::concat(input_size, ", ", hidden_size);
  if (!bias_ih.defined()) s += ", bias=false";
  return s;
}

LSTMState RNNCellBase::step(const Tensor& input, const LSTMState& state) {
  NABLA_CHECK(input.defined() && (input.dim() == 1 || input.dim() == 2) && input.size(-1) == input_size, api_,
              ": expected input of shape [N, ", input_size, "] or [", input_size, "], got ",
              input.defined() ? input.sizes() : Shape{});
  NABLA_CHECK(input.dtype() == weight_ih.dtype(), api_, ": input has dtype ", input.dtype(),
              " but the parameters have dtype ", weight_ih.dtype());
  bool batched = input.dim() == 2;
  Tensor x = batched ? input : input.unsqueeze(0);
  Shape want{x.size(0), hidden_size};
  auto prepare = [&](const Tensor& s, const char* what) {
    if (!s.defined()) return zeros(want, dtype(x.dtype()));
    Tensor t = batched ? s : s.unsqueeze(0);
    NABLA_CHECK(t.sizes() == want && s.dtype() == x.dtype(), api_, ": expected ", what, " of shape ",
                batched ? want : Shape{hidden_size}, " and dtype ", x.dtype(), ", got ", s.sizes(), " ", s.dtype());
    return t;
  };
  LSTMState s{prepare(state.h, "h"), mode_ == RNNMode::kLSTM ? prepare(state.c, "c") : Tensor()};
  LSTMState out = rnn_step(mode_, linear(x, weight_ih, bias_ih), s, weight_hh, bias_hh);
  if (!batched) out = {out.h.squeeze(0), out.c.defined() ? out.c.squeeze(0) : Tensor()};
  return out;
}

static RNNMode cell_mode(const std::string& nonlinearity) {
  NABLA_CHECK(nonlinearity == "tanh" || nonlinearity == "relu",
              "nn::RNNCell: nonlinearity must be \"tanh\" or \"relu\", got \"", nonlinearity, "\"");
  return nonlinearity == "tanh" ? RNNMode::kTanh : RNNMode::kReLU;
}

RNNCell::RNNCell(int64_t input_size, int64_t hidden_size, bool bias, const std::string& nonlinearity)
    : RNNCellBase(cell_mode(nonlinearity), input_size, hidden_size, bias, "nn::RNNCell") {}
Tensor RNNCell::forward(const Tensor& input, const Tensor& h) { return step(input, {h, Tensor()}).h; }
std::string RNNCell::extra_repr() const {
  return RNNCellBase::extra_repr() + (mode_ == RNNMode::kReLU ? ", nonlinearity='relu'" : "");
}

LSTMCell::LSTMCell(int64_t input_size, int64_t hidden_size, bool bias)
    : RNNCellBase(RNNMode::kLSTM, input_size, hidden_size, bias, "nn::LSTMCell") {}
LSTMState LSTMCell::forward(const Tensor& input, const LSTMState& state) { return step(input, state); }

GRUCell::GRUCell(int64_t input_size, int64_t hidden_size, bool bias)
    : RNNCellBase(RNNMode::kGRU, input_size, hidden_size, bias, "nn::GRUCell") {}
Tensor GRUCell::forward(const Tensor& input, const Tensor& h) { return step(input, {h, Tensor()}).h; }

}  // namespace nabla::nn

// Single-step recurrent cells (torch.nn.RNNCell, LSTMCell, GRUCell) and the
// step function that the multi-layer RNN, LSTM and GRU modules share.
//
// Parameters follow PyTorch: weight_ih [G*H, input_size], weight_hh [G*H, H],
// bias_ih and bias_hh [G*H], with G gates stacked in PyTorch's order
// (LSTM: i, f, g, o; GRU: r, z, n; plain RNN: one), all drawn from
// U(-1/sqrt(H), 1/sqrt(H)). Everything is built from nabla ops, so autograd
// needs no rule of its own.
#pragma once
#include <cstdint>
#include <string>

#include "nabla/nn/module.h"

namespace nabla::nn {

// Which recurrence a cell or RNN computes.
enum class RNNMode { kTanh, kReLU, kLSTM, kGRU };

// The hidden state of a cell: h, and c for LSTM (undefined otherwise).
struct LSTMState {
  Tensor h, c;
};

// Gates per mode: 1, 1, 4, 3.
int64_t rnn_gate_count(RNNMode mode);
// One step of the recurrence. `x_gates` = x W_ih^T + b_ih ([N, G*H]) is
// computed by the caller, so a multi-step RNN projects all its inputs in one
// matrix product; b_hh may be undefined.
LSTMState rnn_step(RNNMode mode, const Tensor& x_gates, const LSTMState& state, const Tensor& w_hh, const Tensor& b_hh);

// Shared by the three cells: the parameters and their checks.
class RNNCellBase : public Module {
 public:
  std::string extra_repr() const override;
  void reset_parameters();

  int64_t input_size, hidden_size;
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;  // biases undefined when bias = false

 protected:
  RNNCellBase(RNNMode mode, int64_t input_size, int64_t hidden_size, bool bias, const char* api);
  // Runs one step on input [N, input_size] or [input_size] (unbatched); an
  // undefined h (or c) starts from zeros.
  LSTMState step(const Tensor& input, const LSTMState& state);

  RNNMode mode_;
  const char* api_;
};

// h' = tanh(W_ih x + b_ih + W_hh h + b_hh) (or relu).
class RNNCell : public RNNCellBase {
 public:
  // nonlinearity: "tanh" or "relu".
  RNNCell(int64_t input_size, int64_t hidden_size, bool bias = true, const std::string& nonlinearity = "tanh");
  // The next hidden state; h undefined means zeros.
  Tensor forward(const Tensor& input, const Tensor& h);
  Tensor forward(const Tensor& input) override { return forward(input, Tensor()); }
  std::string extra_repr() const override;
};

// (h', c') from i, f, g, o gates: c' = f*c + i*g, h' = o*tanh(c').
class LSTMCell : public RNNCellBase {
 public:
  LSTMCell(int64_t input_size, int64_t hidden_size, bool bias = true);
  // state {h, c}; undefined members mean zeros.
  LSTMState forward(const Tensor& input, const LSTMState& state);
  // The plain Module call returns h'.
  Tensor forward(const Tensor& input) override { return forward(input, LSTMState{}).h; }
};

// h' = (1 - z) * n + z * h with n = tanh(W_in x + b_in + r * (W_hn h + b_hn)).
class GRUCell : public RNNCellBase {
 public:
  GRUCell(int64_t input_size, int64_t hidden_size, bool bias = true);
  Tensor forward(const Tensor& input, const Tensor& h);
  Tensor forward(const Tensor& input) override { return forward(input, Tensor()); }
};

}  // namespace nabla::nn

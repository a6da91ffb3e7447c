// Multi-layer recurrent networks over whole sequences: nn::RNN (tanh/relu),
// nn::LSTM and nn::GRU, with PyTorch's parameter names, shapes, gate order,
// initialization and output layout:
//
//   nn::LSTM lstm(10, 20, {.num_layers = 2, .bidirectional = true});
//   auto [out, h_n, c_n] = lstm.forward(x, {h0, c0}, lengths);  // out [T, N, 2*20], h_n/c_n [2*2, N, 20]
//   Tensor y = lstm(x);                                          // Module call: output only, zero state
//
// Parameters, per layer k and direction: weight_ih_l{k}, weight_hh_l{k},
// bias_ih_l{k}, bias_hh_l{k} (and weight_hr_l{k} for an LSTM with proj_size),
// with the suffix "_reverse" for the reverse direction; layer 0 takes
// input_size features, later layers D * output_size().
//
// Sequences of different lengths in one batch: pass `lengths` (an int32/int64
// tensor [N], each in [1, T]). It computes what PyTorch computes through
// pack_padded_sequence(x, lengths, enforce_sorted=False) and
// pad_packed_sequence(..., total_length=T): steps past a sequence's length
// output zeros and leave its state alone, so h_n (and c_n) come from its last
// valid step and the reverse direction starts at its own last element. Any
// order of lengths is fine.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "nabla/nn/module.h"
#include "nabla/nn/rnn_cell.h"

namespace nabla::nn {

struct RNNOptions {
  int64_t num_layers = 1;
  bool bias = true;
  bool batch_first = false;  // input/output [N, T, *] instead of [T, N, *] (states are never batch-first)
  double dropout = 0.0;      // on the outputs of every layer but the last, in training mode only
  bool bidirectional = false;
  std::string nonlinearity = "tanh";  // nn::RNN only: "tanh" or "relu"
  int64_t proj_size = 0;              // nn::LSTM only: h = W_hr (o * tanh(c)) with proj_size features
};

struct RNNOutput {
  Tensor output, h_n;
};
struct LSTMOutput {
  Tensor output, h_n, c_n;
};

// What RNN, LSTM and GRU share: parameters and the loop over layers,
// directions and time steps.
class RNNBase : public Module {
 public:
  // The plain Module call: the output sequence, from a zero initial state.
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  void reset_parameters();  // every parameter U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))
  int64_t num_directions() const { return options.bidirectional ? 2 : 1; }
  // Features of h and of each direction's output: proj_size if set, else hidden_size.
  int64_t output_size() const { return options.proj_size ? options.proj_size : hidden_size; }
  // {weight_ih, weight_hh, bias_ih, bias_hh, weight_hr} of one layer and
  // direction (0 forward, 1 reverse); the biases are undefined when
  // bias = false, weight_hr unless proj_size is set.
  const std::vector<Tensor>& layer_weights(int64_t layer, int64_t direction) const;

  int64_t input_size, hidden_size;
  RNNOptions options;

 protected:
  RNNBase(RNNMode mode, int64_t input_size, int64_t hidden_size, RNNOptions options, const char* api);
  // input [T, N, input_size] (or batch_first, or unbatched [T, input_size]);
  // state h (and c) [num_layers * D, N, H] or undefined for zeros.
  LSTMOutput run(const Tensor& input, const LSTMState& state, const Tensor& lengths);

  RNNMode mode_;
  const char* api_;
  std::vector<std::vector<Tensor>> weights_;  // [layer * D + direction]
};

class RNN : public RNNBase {
 public:
  RNN(int64_t input_size, int64_t hidden_size, RNNOptions options = {});
  using RNNBase::forward;
  // h0 [num_layers * D, N, hidden_size] or undefined (zeros).
  RNNOutput forward(const Tensor& input, const Tensor& h0, const Tensor& lengths = Tensor());
};

class LSTM : public RNNBase {
 public:
  LSTM(int64_t input_size, int64_t hidden_size, RNNOptions options = {});
  using RNNBase::forward;
  // state {h0, c0}, each [num_layers * D, N, hidden_size] or undefined (zeros).
  LSTMOutput forward(const Tensor& input, const LSTMState& state, const Tensor& lengths = Tensor());
};

class GRU : public RNNBase {
 public:
  GRU(int64_t input_size, int64_t hidden_size, RNNOptions options = {});
  using RNNBase::forward;
  RNNOutput forward(const Tensor& input, const Tensor& h0, const Tensor& lengths = Tensor());
};

}  // namespace nabla::nn

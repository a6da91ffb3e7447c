// Helpers for batches of sequences of different lengths
// (torch.nn.utils.rnn.pad_sequence). The padded batch and its lengths go to
// RNN/LSTM/GRU::forward, which stands in for pack_padded_sequence.
#pragma once
#include <vector>

#include "nabla/core/tensor.h"

namespace nabla::nn {

// Stacks sequences [L_i, *] (same trailing shape and dtype, L_i may differ)
// into [max L, N, *] (batch_first: [N, max L, *]), filling the tail of each
// shorter sequence with padding_value. Differentiable w.r.t. every sequence.
Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first = false, double padding_value = 0.0);

// The lengths L_i of the sequences as an int64 tensor [N], for the `lengths`
// argument of the recurrent layers.
Tensor sequence_lengths(const std::vector<Tensor>& sequences);

}  // namespace nabla::nn

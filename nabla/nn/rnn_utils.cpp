// pad_sequence and sequence_lengths.
#include "nabla/nn/rnn_utils.h"

#include <algorithm>

#include "nabla/ops/ops.h"

namespace nabla::nn {

namespace {

void check_sequences(const std::vector<Tensor>& seqs, const char* api) {
  NABLA_CHECK(!seqs.empty(), api, ": needs at least one sequence");
  for (std::size_t i = 0; i < seqs.size(); ++i) {
    NABLA_CHECK(seqs[i].defined() && seqs[i].dim() >= 1, api, ": sequence ", i,
                " must be a tensor of at least one dim [L, *]");
    const Tensor& a = seqs[0];
    const Tensor& b = seqs[i];
    bool same = b.dim() == a.dim() && b.dtype() == a.dtype();
    for (int64_t d = 1; same && d < a.dim(); ++d) same = a.size(d) == b.size(d);
    NABLA_CHECK(same, api, ": every sequence needs the trailing shape and dtype of sequence 0 (", a.sizes(), " ",
                a.dtype(), "), but sequence ", i, " is ", b.sizes(), " ", b.dtype());
  }
}

}  // namespace

Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first, double padding_value) {
  check_sequences(sequences, "nn::pad_sequence");
  int64_t max_len = 0;
  for (const Tensor& s : sequences) max_len = std::max(max_len, s.size(0));
  std::vector<Tensor> padded;
  for (const Tensor& s : sequences) {
    // pad() lists (before, after) from the last dim backwards; only dim 0 grows.
    std::vector<int64_t> pads(2 * s.dim(), 0);
    pads.back() = max_len - s.size(0);
    padded.push_back(pads.back() ? pad(s, pads, "constant", padding_value) : s);
  }
  return stack(padded, batch_first ? 0 : 1);
}

Tensor sequence_lengths(const std::vector<Tensor>& sequences) {
  check_sequences(sequences, "nn::sequence_lengths");
  std::vector<int64_t> lengths;
  for (const Tensor& s : sequences) lengths.push_back(s.size(0));
  return tensor(lengths);
}

}  // namespace nabla::nn

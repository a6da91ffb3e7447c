// An LSTM classifies sequences of different lengths: is the sum of a random
// ±1 sequence (odd length, 5 to 21 steps) positive? The answer needs the
// whole sequence, so the network must count.
//
// Two ways to feed it, the two halves of the lecture's point about dynamic
// graphs:
//   padded   (default): each batch mixes lengths; nn::pad_sequence pads them,
//            nn::LSTM takes the batch and their `lengths` (like
//            pack_padded_sequence), and h_n holds each sequence's state at
//            its own last step.
//   dynamic: each batch has one length T drawn at random, and the forward pass
//            is a plain C++ loop of T nn::LSTMCell steps: every batch builds a
//            different graph, and backward follows whatever was built.
//
// Usage: lstm_sequences [steps=300] [padded|dynamic]. Prints the loss every
// 50 steps and, last, "first_loss=... final_loss=... accuracy=...".
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "nabla/nabla.h"

using namespace nabla;

namespace {

constexpr int64_t kMinLen = 5, kMaxLen = 21, kHidden = 32;

struct Batch {
  Tensor x;        // [T, N, 1], zero past each sequence's length
  Tensor lengths;  // int64 [N]
  Tensor labels;   // int64 [N]: 1 if the sum is positive
};

// N sequences with odd lengths (no ties), all of length `fixed` when fixed > 0,
// padded into one batch.
Batch make_batch(int64_t n, int64_t fixed = 0) {
  std::vector<Tensor> sequences;
  for (int64_t i = 0; i < n; ++i) {
    int64_t len = fixed > 0 ? fixed : kMinLen + 2 * randint(0, (kMaxLen - kMinLen) / 2 + 1, {1}).item<int64_t>();
    sequences.push_back(cast(randint(0, 2, {len, 1}) * 2 - 1, kFloat32));  // ±1
  }
  Tensor x = nn::pad_sequence(sequences);  // [max length, N, 1], zero-padded
  Tensor labels = cast(gt(x.sum({0, 2}), zeros({1})), kInt64);
  return {x, nn::sequence_lengths(sequences), labels};
}

double accuracy(const Tensor& logits, const Tensor& labels) {
  return cast(eq(logits.argmax(1), labels), kFloat64).mean().item<double>();
}

}  // namespace

int main(int argc, char** argv) {
  int steps = argc > 1 ? std::atoi(argv[1]) : 300;
  std::string mode = argc > 2 ? argv[2] : "padded";
  if (mode != "padded" && mode != "dynamic") {
    std::fprintf(stderr, "usage: lstm_sequences [steps] [padded|dynamic]\n");
    return 2;
  }
  manual_seed(0);
  nn::LSTM lstm(1, kHidden);
  nn::LSTMCell cell(1, kHidden);
  nn::Linear head(kHidden, 2);
  std::vector<Tensor> params = head.parameters();
  for (const Tensor& p : (mode == "padded" ? lstm.parameters() : cell.parameters())) params.push_back(p);
  optim::Adam opt(params, {{"lr", 1e-2}});

  // The final hidden state of every sequence in the batch.
  auto encode = [&](const Batch& b) -> Tensor {
    if (mode == "padded") return lstm.forward(b.x, {}, b.lengths).h_n.select(0, 0);
    nn::LSTMState s;                                                                  // zeros
    for (int64_t t = 0; t < b.x.size(0); ++t) s = cell.forward(b.x.select(0, t), s);  // T steps, T known only now
    return s.h;
  };

  double first_loss = 0, loss_value = 0;
  for (int step = 0; step < steps; ++step) {
    int64_t fixed = mode == "dynamic" ? kMinLen + 2 * randint(0, (kMaxLen - kMinLen) / 2 + 1, {1}).item<int64_t>() : 0;
    Batch b = make_batch(32, fixed);
    Tensor logits = head(encode(b));
    Tensor loss = cross_entropy(logits, b.labels);
    loss_value = loss.item<double>();
    if (step == 0) first_loss = loss_value;
    if (step % 50 == 0 || step == steps - 1)
      std::printf("step %4d  T=%2lld  loss %.4f  batch accuracy %.3f\n", step, (long long)b.x.size(0), loss_value,
                  accuracy(logits, b.labels));
    opt.zero_grad();
    loss.backward();
    opt.step();
  }

  // Held-out sequences of every length.
  NoGradGuard no_grad;
  double correct = 0, total = 0;
  for (int64_t len = kMinLen; len <= kMaxLen; len += 2) {
    Batch b = make_batch(64, mode == "dynamic" ? len : 0);
    correct += accuracy(head(encode(b)), b.labels) * 64, total += 64;
  }
  std::printf("first_loss=%.4f final_loss=%.4f accuracy=%.3f\n", first_loss, loss_value, correct / total);
  return 0;
}

// RNN, LSTM, GRU and cells: float64 gradchecks, variable lengths against
// running each sequence alone, unbatched/batch_first layouts, dropout,
// default initialization and printing.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "nabla/nabla.h"
#include "tests/support/op_info.h"

namespace {

using namespace nabla;
using nabla::testing::compare;
using nabla::testing::gradcheck;
using nabla::testing::OpInfo;
using nabla::testing::Tensors;

Tensor r64(IntList shape, uint64_t seed) { return nabla::testing::sample(shape, -1.0, 1.0, seed); }

OpInfo info(std::function<Tensors(const Tensors&)> run) {
  OpInfo i;
  i.name = "rnn";
  i.run = std::move(run);
  return i;
}

// One step of each recurrence, differentiated w.r.t. x, h, c and all weights.
TEST(RnnGradcheck, CellStepsInFloat64) {
  for (nn::RNNMode mode : {nn::RNNMode::kTanh, nn::RNNMode::kReLU, nn::RNNMode::kLSTM, nn::RNNMode::kGRU}) {
    int64_t G = nn::rnn_gate_count(mode) * 3;
    Tensors in{r64({2, 4}, 1), r64({2, 3}, 2), r64({2, 3}, 3), r64({G, 4}, 4),
               r64({G, 3}, 5), r64({G}, 6),    r64({G}, 7)};
    bool lstm = mode == nn::RNNMode::kLSTM;
    auto run = [mode, lstm](const Tensors& t) -> Tensors {
      nn::LSTMState s = nn::rnn_step(mode, linear(t[0], t[3], t[5]), {t[1], lstm ? t[2] : Tensor()}, t[4], t[6]);
      return lstm ? Tensors{s.h, s.c} : Tensors{s.h};
    };
    OpInfo i = info(run);
    if (!lstm) i.grad_inputs = {0, 1, 3, 4, 5, 6};
    EXPECT_EQ(gradcheck(i, in), "") << static_cast<int>(mode);
  }
}

// Gradients of gradients (the rules are written in nabla ops).
TEST(RnnGradcheck, LstmAndGruStepsTwiceDifferentiable) {
  for (nn::RNNMode mode : {nn::RNNMode::kLSTM, nn::RNNMode::kGRU}) {
    int64_t G = nn::rnn_gate_count(mode) * 2;
    Tensors in{r64({2, 3}, 11), r64({2, 2}, 12), r64({2, 2}, 13), r64({G, 3}, 14), r64({G, 2}, 15)};
    bool lstm = mode == nn::RNNMode::kLSTM;
    OpInfo i = info([mode, lstm](const Tensors& t) -> Tensors {
      nn::LSTMState s = nn::rnn_step(mode, linear(t[0], t[3]), {t[1], lstm ? t[2] : Tensor()}, t[4], Tensor());
      return lstm ? Tensors{s.h, s.c} : Tensors{s.h};
    });
    if (!lstm) i.grad_inputs = {0, 1, 3, 4};
    EXPECT_EQ(nabla::testing::gradgradcheck(i, in), "") << static_cast<int>(mode);
  }
}

// A whole bidirectional 2-layer LSTM/GRU with variable lengths, w.r.t. input and initial state.
TEST(RnnGradcheck, BidirectionalWithLengthsInFloat64) {
  manual_seed(3);
  nn::LSTM lstm(3, 2, {.num_layers = 2, .bidirectional = true});
  nn::GRU gru(3, 2, {.num_layers = 2, .batch_first = true, .bidirectional = true});
  lstm.to(kFloat64);
  gru.to(kFloat64);
  Tensor lengths = tensor(std::vector<int64_t>{2, 4, 3});
  OpInfo l = info([&](const Tensors& t) -> Tensors {
    auto [out, h, c] = lstm.forward(t[0], {t[1], t[2]}, lengths);
    return {out, h, c};
  });
  EXPECT_EQ(gradcheck(l, {r64({4, 3, 3}, 1), r64({4, 3, 2}, 2), r64({4, 3, 2}, 3)}), "");
  OpInfo g = info([&](const Tensors& t) -> Tensors {
    auto [out, h] = gru.forward(t[0], t[1], lengths);
    return {out, h};
  });
  EXPECT_EQ(gradcheck(g, {r64({3, 4, 3}, 4), r64({4, 3, 2}, 5)}), "");
}

// Padding a sequence and passing its length gives exactly what running it
// alone gives: same outputs on the valid steps, zeros after, same final state.
TEST(RnnLengths, EqualRunningEachSequenceAlone) {
  manual_seed(5);
  nn::LSTM lstm(3, 4, {.num_layers = 2, .bidirectional = true});
  lstm.to(kFloat64);
  std::vector<int64_t> len{3, 6, 1, 4};
  Tensor x = r64({6, 4, 3}, 9), h0 = r64({4, 4, 4}, 10), c0 = r64({4, 4, 4}, 11);
  auto [out, h_n, c_n] = lstm.forward(x, {h0, c0}, tensor(len));
  for (int64_t n = 0; n < 4; ++n) {
    Tensor xn = x.narrow(0, 0, len[n]).narrow(1, n, 1);
    auto [o1, h1, c1] = lstm.forward(xn, {h0.narrow(1, n, 1), c0.narrow(1, n, 1)});
    EXPECT_EQ(compare(out.narrow(0, 0, len[n]).narrow(1, n, 1), o1, 1e-12, 1e-12), "") << n;
    if (len[n] < 6) EXPECT_EQ(out.narrow(0, len[n], 6 - len[n]).narrow(1, n, 1).abs().max().item<double>(), 0.0) << n;
    EXPECT_EQ(compare(h_n.narrow(1, n, 1), h1, 1e-12, 1e-12), "") << n;
    EXPECT_EQ(compare(c_n.narrow(1, n, 1), c1, 1e-12, 1e-12), "") << n;
  }
  // Padding beyond the length gets no gradient.
  Tensor xl = x.detach().requires_grad_();
  lstm.forward(xl, {h0, c0}, tensor(len)).output.sum().backward();
  EXPECT_EQ(xl.grad().narrow(0, 1, 5).narrow(1, 2, 1).abs().max().item<double>(), 0.0);
}

TEST(RnnLayout, UnbatchedAndBatchFirstAgreeWithTheDefaultLayout) {
  manual_seed(6);
  nn::GRU gru(3, 2, {.num_layers = 2});
  nn::GRU gru_bf(3, 2, {.num_layers = 2, .batch_first = true});
  gru_bf.load_state_dict(gru.state_dict());
  Tensor x = randn({5, 2, 3});
  auto [out, h] = gru.forward(x, Tensor());
  auto [out_bf, h_bf] = gru_bf.forward(x.transpose(0, 1), Tensor());
  EXPECT_EQ(compare(out_bf.transpose(0, 1), out, 1e-6, 1e-6), "");
  EXPECT_EQ(compare(h_bf, h, 1e-6, 1e-6), "");
  auto [out1, h1] = gru.forward(x.select(1, 1), Tensor());  // unbatched [T, in]
  EXPECT_EQ(out1.sizes(), Shape({5, 2}));
  EXPECT_EQ(h1.sizes(), Shape({2, 2}));
  EXPECT_EQ(compare(out1, out.select(1, 1), 1e-6, 1e-6), "");
  EXPECT_EQ(compare(gru(x), out, 0, 0), "");  // Module call: the output
  nn::LSTMCell cell(3, 2);
  nn::LSTMState s = cell.forward(x.select(0, 0), {});
  nn::LSTMState s1 = cell.forward(x.select(0, 0).select(0, 1), {});
  EXPECT_EQ(compare(s1.c, s.c.select(0, 1), 1e-6, 1e-6), "");
  EXPECT_EQ(compare(cell(x.select(0, 0)), s.h, 0, 0), "");
}

TEST(RnnDropout, BetweenLayersInTrainingOnly) {
  manual_seed(7);
  nn::LSTM lstm(3, 8, {.num_layers = 2, .dropout = 0.5});
  nn::LSTM plain(3, 8, {.num_layers = 2});
  plain.load_state_dict(lstm.state_dict());
  Tensor x = randn({4, 2, 3});
  Tensor y_train = lstm(x), y_plain = plain(x);
  EXPECT_NE(compare(y_train, y_plain, 1e-6, 1e-6), "");
  lstm.eval();
  EXPECT_EQ(compare(lstm(x), y_plain, 0, 0), "");
  // The last layer's output is never dropped: with one layer dropout changes nothing.
  nn::GRU one(3, 4, {.dropout = 0.9});
  nn::GRU one_plain(3, 4);
  one_plain.load_state_dict(one.state_dict());
  EXPECT_EQ(compare(one(x), one_plain(x), 0, 0), "");
}

TEST(RnnInit, EveryParameterIsUniformWithinOneOverSqrtHidden) {
  manual_seed(8);
  nn::LSTM lstm(20, 64, {.num_layers = 2, .bidirectional = true});
  nn::GRUCell cell(20, 64);
  double bound = 1.0 / 8.0;
  for (nn::Module* m : {static_cast<nn::Module*>(&lstm), static_cast<nn::Module*>(&cell)})
    for (auto& [name, p] : m->named_parameters()) {
      std::vector<float> v = p.to_vector<float>();
      double mean = 0, sq = 0, lo = 1, hi = -1;
      for (float f : v) mean += f, sq += double(f) * f, lo = std::min<double>(lo, f), hi = std::max<double>(hi, f);
      mean /= v.size();
      double var = sq / v.size() - mean * mean;
      EXPECT_GE(lo, -bound) << name;
      EXPECT_LE(hi, bound) << name;
      if (v.size() >= 256) {  // U(-b, b): mean 0, variance b^2/3, reaching the ends
        double tol = 4 * bound / std::sqrt(3.0 * v.size());
        EXPECT_NEAR(mean, 0.0, tol) << name;
        EXPECT_NEAR(var, bound * bound / 3, 0.1 * bound * bound / 3) << name;
        EXPECT_LT(lo, -0.95 * bound) << name;
        EXPECT_GT(hi, 0.95 * bound) << name;
      }
    }
  EXPECT_EQ(lstm.layer_weights(1, 1)[0].sizes(), Shape({256, 128}));
  EXPECT_EQ(lstm.num_parameters(), 2 * (256 * 20 + 256 * 64 + 512) + 2 * (256 * 128 + 256 * 64 + 512));
}

TEST(RnnPrint, ShowsOptionsLikePyTorch) {
  std::ostringstream os;
  os << nn::LSTM(10, 20, {.num_layers = 2, .batch_first = true, .bidirectional = true}) << "\n"
     << nn::RNN(3, 4, {.nonlinearity = "relu"}) << "\n"
     << nn::GRUCell(3, 4, false);
  EXPECT_NE(os.str().find("LSTM(10, 20, num_layers=2, batch_first=true, bidirectional=true)"), std::string::npos)
      << os.str();
  EXPECT_NE(os.str().find("RNN(3, 4, nonlinearity='relu')"), std::string::npos) << os.str();
  EXPECT_NE(os.str().find("GRUCell(3, 4, bias=false)"), std::string::npos) << os.str();
}

}  // namespace

// pad_sequence and sequence_lengths: layout, padding value, gradients, errors,
// and the padded batch through an LSTM equals each sequence run alone.
#include <gtest/gtest.h>

#include <string>

#include "nabla/nabla.h"
#include "tests/support/op_info.h"

namespace {

using namespace nabla;
using nabla::testing::compare;

TEST(PadSequence, StacksAndPadsLikePyTorch) {
  Tensor a = tensor({{1, 2}, {3, 4}, {5, 6}}), b = tensor({{7, 8}});
  Tensor p = nn::pad_sequence({a, b}, false, -1);
  EXPECT_EQ(p.sizes(), Shape({3, 2, 2}));
  EXPECT_EQ(p.to_vector<float>(), std::vector<float>({1, 2, 7, 8, 3, 4, -1, -1, 5, 6, -1, -1}));
  Tensor q = nn::pad_sequence({a, b}, true);
  EXPECT_EQ(q.sizes(), Shape({2, 3, 2}));
  EXPECT_EQ(q.to_vector<float>(), std::vector<float>({1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0}));
  EXPECT_EQ(nn::sequence_lengths({a, b}).to_vector<int64_t>(), std::vector<int64_t>({3, 1}));
  EXPECT_EQ(nn::pad_sequence({tensor({1, 2}), tensor({3})}).sizes(), Shape({2, 2}));  // 1-D sequences
}

TEST(PadSequence, GradientsReachEverySequence) {
  Tensor a = randn({4, 3}, requires_grad()), b = randn({2, 3}, requires_grad());
  (nn::pad_sequence({a, b}) * 2.0).sum().backward();
  EXPECT_EQ(compare(a.grad(), full({4, 3}, 2.0), 0, 0), "");
  EXPECT_EQ(compare(b.grad(), full({2, 3}, 2.0), 0, 0), "");
}

TEST(PadSequence, PaddedBatchThroughLstmEqualsEachSequenceAlone) {
  manual_seed(2);
  nn::LSTM lstm(3, 4, {.batch_first = true, .bidirectional = true});
  std::vector<Tensor> seqs{randn({5, 3}), randn({2, 3}), randn({4, 3})};
  auto [out, h_n, c_n] = lstm.forward(nn::pad_sequence(seqs, true), {}, nn::sequence_lengths(seqs));
  for (std::size_t i = 0; i < seqs.size(); ++i) {
    auto [o, h, c] = lstm.forward(seqs[i], {});  // unbatched
    EXPECT_EQ(compare(out.select(0, i).narrow(0, 0, seqs[i].size(0)), o, 1e-6, 1e-6), "") << i;
    EXPECT_EQ(compare(h_n.select(1, i), h, 1e-6, 1e-6), "") << i;
  }
}

TEST(PadSequence, Errors) {
  auto error_of = [](auto f) -> std::string {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  std::string e = error_of([] { nn::pad_sequence({randn({2, 3}), randn({2, 4})}); });
  EXPECT_NE(e.find("nn::pad_sequence"), std::string::npos) << e;
  EXPECT_NE(e.find("sequence 1 is [2, 4]"), std::string::npos) << e;
  e = error_of([] { nn::pad_sequence({}); });
  EXPECT_NE(e.find("at least one sequence"), std::string::npos) << e;
  e = error_of([] { nn::sequence_lengths({randn({2}), randn({2}, dtype(kFloat64))}); });
  EXPECT_NE(e.find("nn::sequence_lengths"), std::string::npos) << e;
}

}  // namespace

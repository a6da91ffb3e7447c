// Bad arguments to the losses raise nabla::Error whose message names the
// loss, what was given and what was expected (DESIGN.md, "Errors").
#include <gtest/gtest.h>

#include <functional>

#include "support/op_info.h"

namespace nabla::testing {
namespace {

// Expects f to throw nabla::Error with every one of `parts` in its message.
void expect_throws_with(const std::function<void()>& f, std::initializer_list<std::string> parts) {
  std::string msg;
  try {
    f();
    ADD_FAILURE() << "no error was raised";
    return;
  } catch (const Error& e) {
    msg = e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a nabla::Error: " << e.what();
    return;
  }
  for (const std::string& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "missing \"" << p << "\" in: " << msg;
}

Tensor logits() { return sample({4, 5}); }
Tensor targets(std::vector<int64_t> v) { return tensor(v, {static_cast<int64_t>(v.size())}); }
Tensor good_targets() { return targets({1, 0, 4, 2}); }

TEST(LossErrors, CrossEntropyTargetShape) {
  expect_throws_with(
      [] {
        cross_entropy(logits(), targets({1, 0, 4}));
      },
      {"cross_entropy", "expected target of shape [4]", "input of shape [4, 5]", "got [3]"});
  expect_throws_with(
      [] {
        cross_entropy(sample({2, 5, 3}), targets({1, 0}));
      },
      {"cross_entropy", "expected target of shape [2, 3]", "got [2]"});
  expect_throws_with([] { cross_entropy(sample({5}), targets({1})); },
                     {"cross_entropy", "expected target of shape []", "got [1]"});
}

TEST(LossErrors, CrossEntropyTargetDtype) {
  expect_throws_with([] { cross_entropy(logits(), good_targets().to(kBool)); },
                     {"cross_entropy", "int64", "got dtype bool"});
  expect_throws_with([] { cross_entropy(logits(), good_targets().to(kUInt8)); },
                     {"cross_entropy", "int64", "got dtype uint8"});
}

TEST(LossErrors, CrossEntropyProbabilitiesTargetShape) {
  expect_throws_with(
      [] {
        cross_entropy(logits(), sample({4, 4}));
      },
      {"cross_entropy", "probabilities target of the input's shape [4, 5]", "got shape [4, 4]"});
  expect_throws_with([] { cross_entropy(logits(), sample({4})); },
                     {"cross_entropy", "probabilities target", "int64", "got shape [4]"});
}

TEST(LossErrors, CrossEntropyIndexOutOfRange) {
  expect_throws_with(
      [] {
        cross_entropy(logits(), targets({1, 0, 5, 2}));
      },
      {"cross_entropy", "target 5 at position 2 is out of bounds", "[0, 4]", "ignore_index (-100)"});
  expect_throws_with([] { cross_entropy(logits(), targets({1, -1, 0, 2})); }, {"cross_entropy", "target -1"});
  // ignore_index itself is fine, in range or not
  EXPECT_NO_THROW(cross_entropy(logits(), targets({1, -7, 0, 2}), Tensor(), -7));
  expect_throws_with([] { nll_loss(logits(), targets({1, 0, 9, 2})); }, {"nll_loss", "target 9 at position 2"});
}

TEST(LossErrors, CrossEntropyWeightAndOptions) {
  expect_throws_with([] { cross_entropy(logits(), good_targets(), ones({4}, dtype(kFloat64))); },
                     {"cross_entropy", "expected weight of shape [5] (one per class)", "got [4]"});
  expect_throws_with(
      [] {
        cross_entropy(logits(), sample({4, 5}, 0, 1), ones({3}, dtype(kFloat64)));
      },
      {"cross_entropy", "weight of shape [5]", "got [3]"});
  expect_throws_with(
      [] {
        nll_loss(logits(), good_targets(), ones({5, 1}, dtype(kFloat64)));
      },
      {"nll_loss", "expected weight of shape [5]", "got [5, 1]"});
  expect_throws_with([] { cross_entropy(logits(), good_targets(), Tensor(), -100, "avg"); },
                     {"cross_entropy", "reduction must be \"none\", \"mean\" or \"sum\"", "got \"avg\""});
  expect_throws_with([] { cross_entropy(logits(), good_targets(), Tensor(), -100, "mean", 1.5); },
                     {"cross_entropy", "label_smoothing must be in [0, 1]", "got 1.5"});
  expect_throws_with([] { cross_entropy(good_targets(), good_targets()); },
                     {"cross_entropy", "floating point input", "int64"});
  expect_throws_with([] { nll_loss(logits(), good_targets().to(kFloat64)); },
                     {"nll_loss", "int64", "got dtype float64"});
}

TEST(LossErrors, RegressionLosses) {
  expect_throws_with(
      [] {
        mse_loss(sample({3, 4}), sample({4}));
      },
      {"mse_loss", "expected target of the input's shape [3, 4]", "got [4]"});
  expect_throws_with([] { l1_loss(sample({3, 1}), sample({3})); }, {"l1_loss", "shape [3, 1]", "got [3]"});
  expect_throws_with([] { mse_loss(sample({3}), sample({3}), "batchmean"); },
                     {"mse_loss", "reduction must be", "got \"batchmean\""});
  expect_throws_with([] { smooth_l1_loss(sample({3}), sample({3}), "mean", -1.0); },
                     {"smooth_l1_loss", "beta must be >= 0", "got -1"});
  expect_throws_with([] { huber_loss(sample({3}), sample({3}), "mean", 0.0); },
                     {"huber_loss", "delta must be > 0", "got 0"});
  expect_throws_with([] { mse_loss(good_targets(), good_targets()); }, {"mse_loss", "floating point input", "int64"});
}

TEST(LossErrors, BinaryCrossEntropy) {
  expect_throws_with(
      [] {
        binary_cross_entropy(tensor({0.5, 0.2, 1.5}), tensor({1.0, 0.0, 1.0}));
      },
      {"binary_cross_entropy", "should be probabilities in [0, 1]", "got 1.5 at position 2"});
  expect_throws_with([] { binary_cross_entropy(sample({3}, 0.1, 0.9), sample({4}, 0, 1)); },
                     {"binary_cross_entropy", "input's shape [3]", "got [4]"});
  expect_throws_with(
      [] {
        binary_cross_entropy(sample({3, 4}, 0.1, 0.9), sample({3, 4}, 0, 1), ones({3}));
      },
      {"binary_cross_entropy", "weight of shape [3]", "does not broadcast", "[3, 4]"});
  expect_throws_with(
      [] {
        binary_cross_entropy_with_logits(sample({3, 4}), sample({3, 4}), Tensor(), "mean", ones({3}));
      },
      {"binary_cross_entropy_with_logits", "pos_weight of shape [3]", "does not broadcast"});
  expect_throws_with(
      [] {
        binary_cross_entropy_with_logits(sample({3, 4}), sample({4, 3}));
      },
      {"binary_cross_entropy_with_logits", "input's shape [3, 4]", "got [4, 3]"});
  expect_throws_with([] { binary_cross_entropy_with_logits(sample({3}), sample({3}), Tensor(), "all"); },
                     {"binary_cross_entropy_with_logits", "reduction must be", "got \"all\""});
}

TEST(LossErrors, KlDiv) {
  expect_throws_with([] { kl_div(sample({2, 3}), sample({2, 2})); }, {"kl_div", "input's shape [2, 3]", "got [2, 2]"});
  expect_throws_with(
      [] {
        kl_div(sample({2, 3}), sample({2, 3}), "batch");
      },
      {"kl_div", "\"sum\" or \"batchmean\"", "got \"batch\""});
}

}  // namespace
}  // namespace nabla::testing

// Bad inputs to the nn functional ops raise nabla::Error whose message names
// the op, what was given and what was expected (DESIGN.md, "Errors").
#include <gtest/gtest.h>

#include <functional>

#include "nabla/nabla.h"

namespace nabla {
namespace {

// Expects fn to throw nabla::Error with every string of `parts` in its message.
void expect_error(const std::function<void()>& fn, std::initializer_list<std::string> parts) {
  try {
    fn();
  } catch (const Error& e) {
    std::string msg = e.what();
    for (const std::string& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "\"" << p << "\" not in: " << msg;
    return;
  }
  ADD_FAILURE() << "no nabla::Error thrown";
}

TEST(NnErrors, Softmax) {
  Tensor x = zeros({2, 3});
  expect_error([&] { softmax(x, 2); }, {"softmax", "dim 2", "out of range", "[-2, 1]"});
  expect_error([&] { log_softmax(x, -3); }, {"log_softmax", "dim -3", "[-2, 1]"});
}

TEST(NnErrors, BatchNorm) {
  Tensor rm = zeros({3}), rv = ones({3});
  expect_error([&] { batch_norm(zeros({3}), rm, rv); }, {"batch_norm", "[3]", "[N, C]"});
  expect_error([&] { batch_norm(zeros({2, 4}), rm, rv); }, {"batch_norm", "running_mean", "[3]", "expected [4]"});
  expect_error([&] { batch_norm(zeros({2, 3}), rm, rv, ones({2})); }, {"batch_norm", "weight", "[2]", "expected [3]"});
  expect_error([&] { batch_norm(zeros({2, 3}), Tensor(), Tensor(), Tensor(), Tensor(), false); },
               {"batch_norm", "eval mode", "running_mean"});
  expect_error([&] { batch_norm(zeros({1, 3}), rm, rv, Tensor(), Tensor(), true); },
               {"batch_norm", "more than 1 value per channel", "[1, 3]"});
  expect_error([&] { batch_norm(zeros({2, 3}, dtype(kInt64)), rm, rv); }, {"batch_norm", "floating point", "int64"});
}

TEST(NnErrors, LayerNorm) {
  Tensor x = zeros({2, 3, 4});
  expect_error([&] { layer_norm(x, {3}); }, {"layer_norm", "normalized_shape [3]", "[2, 3, 4]", "[*, 3]"});
  expect_error([&] { layer_norm(x, {2, 3, 4, 5}); }, {"layer_norm", "[2, 3, 4, 5]", "trailing dims"});
  expect_error([&] { layer_norm(x, {4}, ones({3})); }, {"layer_norm", "weight", "[3]", "expected normalized_shape [4]"});
  expect_error([&] { layer_norm(x, {}); }, {"layer_norm", "normalized_shape is empty"});
}

TEST(NnErrors, GroupNorm) {
  expect_error([&] { group_norm(zeros({2, 6, 3}), 4); }, {"group_norm", "num_groups 4", "channels 6", "[2, 6, 3]"});
  expect_error([&] { group_norm(zeros({2, 6}), 0); }, {"group_norm", "num_groups 0"});
  expect_error([&] { group_norm(zeros({6}), 2); }, {"group_norm", "[N, C, *]", "[6]"});
  expect_error([&] { group_norm(zeros({2, 6, 3}), 3, ones({3})); }, {"group_norm", "weight", "expected [6]"});
}

TEST(NnErrors, Dropout) {
  expect_error([&] { dropout(zeros({3}), 1.5); }, {"dropout", "p must be in [0, 1]", "1.5"});
  expect_error([&] { dropout(zeros({3}), -0.1); }, {"dropout", "-0.1"});
  expect_error([&] { dropout(zeros({3}), 2.0, false); }, {"dropout", "2"});
  expect_error([&] { dropout(zeros({3}, dtype(kInt64)), 0.5); }, {"dropout", "floating point", "int64"});
}

TEST(NnErrors, Embedding) {
  Tensor w = zeros({5, 2});
  Tensor idx = tensor(std::vector<int64_t>{0, 7, 1});
  expect_error([&] { embedding(idx, w); }, {"embedding", "index 7", "5 rows", "[0, 5)"});
  expect_error([&] { embedding(tensor(std::vector<int32_t>{-1}), w); }, {"embedding", "index -1", "[0, 5)"});
  expect_error([&] { embedding(tensor({0.0, 1.0}), w); }, {"embedding", "int64 or int32", "float32"});
  expect_error([&] { embedding(tensor(std::vector<int64_t>{0}), zeros({5})); },
               {"embedding", "2-D weight", "[5]"});
  expect_error([&] { embedding(tensor(std::vector<int64_t>{0}), w, 5); },
               {"embedding", "padding_idx 5", "-1 (none)", "[0, 5)"});
}

TEST(NnErrors, Pad) {
  Tensor x = zeros({2, 3, 4});
  expect_error([&] { pad(x, {1, 2, 3}); }, {"pad", "3 pad values", "[2, 3, 4]", "even number"});
  expect_error([&] { pad(x, {1, 1, 1, 1, 1, 1, 1, 1}); }, {"pad", "8 pad values", "at most 6"});
  expect_error([&] { pad(x, {-3, -2}); }, {"pad", "dim 2 of size 4", "negative"});
  expect_error([&] { pad(x, {4, 0}, "reflect"); }, {"pad", "reflect", "(4, 0)", "smaller than its size 4"});
  expect_error([&] { pad(x, {0, 0, 3, 0}, "reflect"); }, {"pad", "reflect", "dim 1", "size 3"});
  expect_error([&] { pad(zeros({4}), {1, 1}, "replicate"); }, {"pad", "replicate", "2-D or 3-D", "[4]"});
  expect_error([&] { pad(x, {1, 1, 1, 1, 1, 1}, "replicate"); }, {"pad", "replicate", "1 or 2 dims", "6 pad values"});
  expect_error([&] { pad(x, {-1, 1}, "replicate"); }, {"pad", "non-negative"});
  expect_error([&] { pad(x, {1, 1}, "circular"); }, {"pad", "\"circular\"", "\"constant\", \"reflect\" or \"replicate\""});
  expect_error([&] { pad(x, {1, 1}, "reflect", 2.0); }, {"pad", "reflect", "takes no fill value"});
}

TEST(NnErrors, Interpolate) {
  Tensor x = zeros({1, 2, 3, 4});
  expect_error([&] { interpolate(zeros({2, 3, 4}), {.size = {4, 4}}); }, {"interpolate", "4-D", "[2, 3, 4]"});
  expect_error([&] { interpolate(x, {}); }, {"interpolate", "exactly one of size and scale_factor", "neither"});
  expect_error([&] { interpolate(x, {.size = {4, 4}, .scale_factor = {2.0}}); }, {"interpolate", "both"});
  expect_error([&] { interpolate(x, {.size = {4, 4, 4}}); }, {"interpolate", "size", "1 or 2 values", "3 values"});
  expect_error([&] { interpolate(x, {.size = {0, 4}}); }, {"interpolate", "positive", "[0, 4]"});
  expect_error([&] { interpolate(x, {.scale_factor = {-1.0}}); }, {"interpolate", "scale_factor", "positive"});
  expect_error([&] { interpolate(x, {.scale_factor = {0.1}}); }, {"interpolate", "output size [0, 0]"});
  expect_error([&] { interpolate(x, {.size = {4, 4}, .mode = "bicubic"}); }, {"interpolate", "\"bicubic\"", "\"nearest\" or \"bilinear\""});
  expect_error([&] { interpolate(x, {.size = {4, 4}, .align_corners = true}); }, {"interpolate", "align_corners", "\"nearest\""});
  expect_error([&] { interpolate(zeros({1, 2, 3, 4}, dtype(kInt64)), {.size = {4, 4}}); },
               {"interpolate: expected a floating point input", "int64"});
}

}  // namespace
}  // namespace nabla

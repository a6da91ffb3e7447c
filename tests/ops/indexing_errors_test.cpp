// Bad input to the indexing, joining and sorting ops raises nabla::Error whose
// message names the op, what was given and what was expected (DESIGN.md,
// "Errors and data safety"). Each case checks the exception and key parts of
// its message.
#include "ops/index_test_util.h"

namespace nabla::testing {
namespace {

Tensor x34() { return sample({3, 4}, -2, 2, 1).to(kFloat32); }

TEST(IndexingErrors, Gather) {
  Tensor x = x34();
  EXPECT_ERROR((void)gather(x, 1, ints({0, 1, 2})), "gather", "index has 1 dims", "shape [3]", "has 2",
               "expected the same number of dims");
  EXPECT_ERROR((void)gather(x, 1, ints({5}, {1, 1})), "gather: index 5 is out of bounds for dim 1 of size 4",
               "expected an index in [0, 4)");
  EXPECT_ERROR((void)gather(x, 0, ints({-1}, {1, 1})), "gather: index -1 is out of bounds for dim 0 of size 3");
  EXPECT_ERROR((void)gather(x, 1, tensor({1.0}).reshape({1, 1})), "gather: index must be an int64 (or int32) tensor",
               "got float32");
  EXPECT_ERROR((void)gather(x, 1, ints({0, 0, 0, 0}, {4, 1})), "gather: index shape [4, 1] is larger than the input shape [3, 4] at dim 0");
  EXPECT_ERROR((void)gather(x, 2, ints({0}, {1, 1})), "gather: dim 2 is out of range", "[-2, 1]");
}

TEST(IndexingErrors, Scatter) {
  Tensor x = x34();
  EXPECT_ERROR((void)scatter(x, 0, ints({0}, {1, 1}), tensor({1.0}, dtype(kFloat64)).reshape({1, 1})),
               "scatter: src has dtype float64 but the input has dtype float32");
  EXPECT_ERROR((void)scatter(x, 0, ints({0, 1}, {2, 1}), tensor({1.0}).reshape({1, 1})),
               "scatter: index shape [2, 1] is larger than src shape [1, 1] at dim 0");
  EXPECT_ERROR((void)scatter(x, 0, ints({7}, {1, 1}), x), "scatter: index 7 is out of bounds for dim 0 of size 3");
  EXPECT_ERROR((void)scatter(x, 1, ints({4}, {1, 1}), Scalar(1.0)), "scatter: index 4 is out of bounds for dim 1 of size 4");
  EXPECT_ERROR((void)scatter_add(x, 1, ints({-2}, {1, 1}), x), "scatter_add: index -2 is out of bounds");
  EXPECT_ERROR((void)scatter_add(x, 1, ints({0}), x), "scatter_add", "index has 1 dims");
}

TEST(IndexingErrors, IndexSelectAndIndexAdd) {
  Tensor x = x34();
  EXPECT_ERROR((void)index_select(x, 0, ints({0, 1}, {2, 1})), "index_select: index must be 0-dim or 1-D, got shape [2, 1]");
  EXPECT_ERROR((void)index_select(x, 0, ints({3})), "index_select: index 3 is out of bounds for dim 0 of size 3");
  EXPECT_ERROR((void)index_select(tensor({1.0}).reshape({}), 0, ints({0})), "index_select: expected an input with at least 1 dim");
  EXPECT_ERROR((void)index_add(x, 1, ints({0, 1}), sample({3, 3}).to(kFloat32)),
               "index_add: source has shape [3, 3] but expected [3, 2]");
  EXPECT_ERROR((void)index_add(x, 0, ints({-1}), sample({1, 4}).to(kFloat32)), "index_add: index -1 is out of bounds for dim 0");
  EXPECT_ERROR((void)index_add(x, 0, ints({0}), sample({1, 4})), "index_add: source has dtype float64",
               "input has dtype float32");
}

TEST(IndexingErrors, TakeMaskedOneHot) {
  Tensor x = sample({2, 3});
  EXPECT_ERROR((void)take(x, ints({6})), "take: index 6 is out of bounds for a tensor of 6 elements", "[-6, 6)");
  EXPECT_ERROR((void)take(x, ints({-7})), "take: index -7 is out of bounds");
  EXPECT_ERROR((void)masked_fill(x, x, Scalar(0.0)), "masked_fill: mask must be a bool tensor, got float64");
  EXPECT_ERROR((void)masked_fill(x, mask_of({1, 0, 1}, {3}), sample({2})), "masked_fill: value must be a 0-dim tensor, got shape [2]");
  EXPECT_ERROR((void)masked_fill(x, mask_of({1, 0}, {2}), Scalar(0.0)), "masked_fill: shapes [2, 3] and [2] cannot be broadcast");
  EXPECT_ERROR((void)masked_select(x, ints({1, 0, 1})), "masked_select: mask must be a bool tensor, got int64");
  EXPECT_ERROR((void)masked_select(x, mask_of({1, 0, 1, 1}, {4})), "masked_select: shapes [2, 3] and [4] cannot be broadcast");
  EXPECT_ERROR((void)one_hot(ints({0, 5}), 3), "one_hot: class value 5 is out of range for num_classes 3");
  EXPECT_ERROR((void)one_hot(ints({-1, 0}), 3), "one_hot: class value -1 is out of range");
  EXPECT_ERROR((void)one_hot(ints({0}), -2), "one_hot: num_classes must be -1", "got -2");
  EXPECT_ERROR((void)one_hot(ints({}, {0})), "one_hot: cannot infer num_classes from an empty tensor");
  EXPECT_ERROR((void)one_hot(tensor({1.0})), "one_hot: index must be an int64 (or int32) tensor, got float32");
}

TEST(IndexingErrors, CatAndStack) {
  EXPECT_ERROR((void)cat({}), "cat: expected a non-empty list of tensors");
  EXPECT_ERROR((void)cat({sample({2, 3}), sample({3})}), "cat: tensor 1 has 1 dims (shape [3]) but tensor 0 has 2");
  EXPECT_ERROR((void)cat({sample({2, 3}), sample({2, 4})}, 0),
               "cat: sizes of tensors must match except in dim 0, but tensor 0 has shape [2, 3] and tensor 1 has shape [2, 4]");
  EXPECT_ERROR((void)cat({sample({}), sample({})}), "cat: zero-dimensional tensor (at position 0) cannot be concatenated");
  EXPECT_ERROR((void)cat({sample({2}), sample({})}), "cat: zero-dimensional tensor (at position 1)");
  EXPECT_ERROR((void)cat({sample({2, 3})}, 2), "cat: dim 2 is out of range");
  EXPECT_ERROR((void)stack({}), "stack: expected a non-empty list of tensors");
  EXPECT_ERROR((void)stack({sample({2, 3}), sample({3, 2})}),
               "stack: expects each tensor to be equal size, but got [2, 3] at entry 0 and [3, 2] at entry 1");
  EXPECT_ERROR((void)stack({sample({2, 3})}, 3), "stack: dim 3 is out of range");
}

TEST(IndexingErrors, SplitChunkRepeat) {
  Tensor x = sample({3, 4});
  EXPECT_ERROR((void)split(x, -1), "split: split_size must be non-negative, got -1");
  EXPECT_ERROR((void)split(x, 0), "split: split_size can only be 0 if dim 0 has size 0, but it has size 3");
  EXPECT_ERROR((void)split(x, {1, 1}), "split: split_sizes [1, 1] sum to 2 but dim 0 has size 3");
  EXPECT_ERROR((void)split(x, {4, -1}), "split: split_sizes must be non-negative, got [4, -1]");
  EXPECT_ERROR((void)split(sample({}), 1), "split: expected a tensor with at least 1 dim");
  EXPECT_ERROR((void)chunk(x, 0), "chunk: chunks must be greater than 0, got 0");
  EXPECT_ERROR((void)repeat(x, {2}), "repeat: the number of repeats (1, [2]) can't be smaller than the number of dims",
               "(2, shape [3, 4])");
  EXPECT_ERROR((void)repeat(x, {2, -1}), "repeat: repeats must be non-negative, got [2, -1]");
  EXPECT_ERROR((void)tile(x, {-3}), "tile: repeats must be non-negative, got [-3]");
}

TEST(IndexingErrors, FlipRollTriangle) {
  Tensor x = sample({3, 4});
  EXPECT_ERROR((void)flip(x, {0, -2}), "flip: dim 0 appears more than once in [0, -2]");
  EXPECT_ERROR((void)flip(x, {2}), "flip: dim 2 is out of range");
  EXPECT_ERROR((void)roll(x, {1, 2}, {0}), "roll: got 2 shifts [1, 2] for 1 dims [0] (expected one shift per dim)");
  EXPECT_ERROR((void)roll(x, {1, 2}), "roll: without dims, expected exactly one shift", "got [1, 2]");
  EXPECT_ERROR((void)roll(x, {1}, {-3}), "roll: dim -3 is out of range");
  EXPECT_ERROR((void)tril(sample({3})), "tril: expected a tensor with at least 2 dims, got shape [3]");
  EXPECT_ERROR((void)triu(sample({})), "triu: expected a tensor with at least 2 dims, got shape []");
}

TEST(IndexingErrors, SortAndTopk) {
  Tensor x = sample({3, 4});
  EXPECT_ERROR((void)sort(x, 2), "sort: dim 2 is out of range");
  EXPECT_ERROR((void)argsort(x, -3), "sort: dim -3 is out of range");
  EXPECT_ERROR((void)topk(x, 5), "topk: k (5) is out of range for dim 1 of size 4", "expected 0 <= k <= 4");
  EXPECT_ERROR((void)topk(x, -1, 0), "topk: k (-1) is out of range for dim 0 of size 3");
  EXPECT_ERROR((void)topk(x, 1, 2), "topk: dim 2 is out of range");
}

}  // namespace
}  // namespace nabla::testing

// Samplers: sequential, random (per-epoch permutations), weighted, batching.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "nabla/nabla.h"

namespace nabla::data {
namespace {

bool is_permutation_of_range(std::vector<int64_t> v, int64_t n) {
  std::sort(v.begin(), v.end());
  std::vector<int64_t> r(n);
  std::iota(r.begin(), r.end(), int64_t{0});
  return v == r;
}

TEST(Sampler, Sequential) {
  EXPECT_EQ(SequentialSampler(4).indices(3), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_TRUE(SequentialSampler(0).indices(0).empty());
}

TEST(Sampler, RandomIsAPermutationNewEachEpochAndSeeded) {
  RandomSampler s(257, 42);
  auto e0 = s.indices(0), e1 = s.indices(1);
  EXPECT_TRUE(is_permutation_of_range(e0, 257));
  EXPECT_TRUE(is_permutation_of_range(e1, 257));
  EXPECT_NE(e0, e1);
  EXPECT_EQ(RandomSampler(257, 42).indices(1), e1);  // a function of (seed, epoch)
  EXPECT_NE(RandomSampler(257, 43).indices(0), e0);
  EXPECT_TRUE(RandomSampler(0, 1).indices(0).empty());
  EXPECT_EQ(RandomSampler(1, 1).indices(5), (std::vector<int64_t>{0}));
}

TEST(Sampler, WeightedFollowsWeights) {
  WeightedRandomSampler s({0.0, 1.0, 3.0, 0.0}, 4000, 5);
  auto v = s.indices(0);
  ASSERT_EQ(v.size(), 4000u);
  int64_t ones = std::count(v.begin(), v.end(), 1), threes = std::count(v.begin(), v.end(), 2);
  EXPECT_EQ(ones + threes, 4000);  // zero weights are never drawn
  EXPECT_GT(threes, 2 * ones);     // ~3x; deterministic for this seed
  EXPECT_EQ(WeightedRandomSampler({0.0, 1.0, 3.0, 0.0}, 4000, 5).indices(0), v);
  EXPECT_NE(s.indices(1), v);
  EXPECT_THROW(WeightedRandomSampler({0.0, 0.0}, 3, 1), Error);
  EXPECT_THROW(WeightedRandomSampler({1.0, -1.0}, 3, 1), Error);
}

TEST(Sampler, BatchSamplerDropLast) {
  auto seq = std::make_shared<SequentialSampler>(10);
  BatchSampler keep(seq, 4, false), drop(seq, 4, true);
  EXPECT_EQ(keep.size(), 3);
  EXPECT_EQ(drop.size(), 2);
  auto b = keep.batches(0);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[2], (std::vector<int64_t>{8, 9}));
  EXPECT_EQ(drop.batches(0).size(), 2u);
  EXPECT_EQ(drop.batches(0)[1], (std::vector<int64_t>{4, 5, 6, 7}));
  EXPECT_EQ(BatchSampler(seq, 5, true).batches(0).size(), 2u);
  EXPECT_THROW(BatchSampler(seq, 0, false), Error);
}

}  // namespace
}  // namespace nabla::data

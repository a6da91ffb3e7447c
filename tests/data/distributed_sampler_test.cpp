// DistributedSampler: PyTorch's shard arithmetic (padding, drop_last, len) and
// per-epoch reshuffling.
#include "nabla/data/distributed_sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "nabla/core/error.h"

namespace nabla::data {
namespace {

using Shards = std::vector<std::vector<int64_t>>;

Shards shards(int64_t n, int64_t replicas, bool drop_last) {
  Shards out;
  for (int64_t r = 0; r < replicas; ++r)
    out.push_back(DistributedSampler(n, replicas, r, false, 0, drop_last).indices(0));
  return out;
}

// Produced with torch 1.13 (/usr/bin/python3):
//   [list(DistributedSampler(range(n), num_replicas=R, rank=k, shuffle=False, drop_last=dl)) for k in range(R)]
TEST(DistributedSampler, MatchesPyTorchUnshuffled) {
  EXPECT_EQ(shards(10, 3, false), (Shards{{0, 3, 6, 9}, {1, 4, 7, 0}, {2, 5, 8, 1}}));
  EXPECT_EQ(shards(10, 3, true), (Shards{{0, 3, 6}, {1, 4, 7}, {2, 5, 8}}));
  EXPECT_EQ(shards(8, 2, false), (Shards{{0, 2, 4, 6}, {1, 3, 5, 7}}));
  EXPECT_EQ(shards(2, 3, false), (Shards{{0}, {1}, {0}}));
  // len(sampler) per rank, same runs: 4, 3, 4, 1.
  EXPECT_EQ(DistributedSampler(10, 3, 0, false, 0, false).size(), 4);
  EXPECT_EQ(DistributedSampler(10, 3, 2, false, 0, true).size(), 3);
  EXPECT_EQ(DistributedSampler(2, 3, 1, false).size(), 1);
  EXPECT_TRUE(DistributedSampler(0, 2, 1).indices(0).empty());
}

TEST(DistributedSampler, ShuffledShardsAreDisjointSeededAndNewEachEpoch) {
  const int64_t n = 101, R = 4;  // not divisible: pads to 104
  for (uint64_t epoch : {0u, 1u}) {
    std::vector<int64_t> all;
    for (int64_t r = 0; r < R; ++r) {
      auto v = DistributedSampler(n, R, r, true, 7).indices(epoch);
      EXPECT_EQ(static_cast<int64_t>(v.size()), 26);
      all.insert(all.end(), v.begin(), v.end());
    }
    std::sort(all.begin(), all.end());
    const int64_t distinct = std::unique(all.begin(), all.end()) - all.begin();
    EXPECT_EQ(distinct, n);  // every sample once, 3 of them twice (padding)
  }
  DistributedSampler s(n, R, 1, true, 7);
  EXPECT_NE(s.indices(0), s.indices(1));                                     // set_epoch reshuffles
  EXPECT_EQ(DistributedSampler(n, R, 1, true, 7).indices(1), s.indices(1));  // a function of (seed, epoch)
  EXPECT_NE(DistributedSampler(n, R, 1, true, 8).indices(0), s.indices(0));
  // drop_last with shuffle: disjoint, 25 each, 1 sample left out.
  std::vector<int64_t> kept;
  for (int64_t r = 0; r < R; ++r) {
    auto v = DistributedSampler(n, R, r, true, 7, true).indices(3);
    EXPECT_EQ(v.size(), 25u);
    kept.insert(kept.end(), v.begin(), v.end());
  }
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(std::unique(kept.begin(), kept.end()), kept.end());
}

TEST(DistributedSampler, RejectsBadArguments) {
  EXPECT_THROW(DistributedSampler(10, 0, 0), Error);
  EXPECT_THROW(DistributedSampler(10, 2, 2), Error);
  EXPECT_THROW(DistributedSampler(10, 2, -1), Error);
  EXPECT_THROW(DistributedSampler(-1, 2, 0), Error);
}

}  // namespace
}  // namespace nabla::data

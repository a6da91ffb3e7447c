// DistributedSampler (see distributed_sampler.h), index arithmetic as in
// torch/utils/data/distributed.py.
#include "nabla/data/distributed_sampler.h"

#include <numeric>

#include "nabla/core/error.h"
#include "nabla/data/permutation.h"

namespace nabla::data {

DistributedSampler::DistributedSampler(int64_t n, int64_t num_replicas, int64_t rank, bool shuffle, uint64_t seed,
                                       bool drop_last)
    : n_(n), num_replicas_(num_replicas), rank_(rank), shuffle_(shuffle), seed_(seed) {
  NABLA_CHECK(n >= 0, "DistributedSampler: dataset size must be non-negative, got ", n);
  NABLA_CHECK(num_replicas >= 1, "DistributedSampler: num_replicas must be at least 1, got ", num_replicas);
  NABLA_CHECK(rank >= 0 && rank < num_replicas, "DistributedSampler: rank must be in [0, num_replicas=", num_replicas,
              "), got ", rank);
  // drop_last: floor(n / R) per rank; otherwise ceil(n / R), padded.
  per_rank_ = drop_last ? n / num_replicas : (n + num_replicas - 1) / num_replicas;
}

std::vector<int64_t> DistributedSampler::indices(uint64_t epoch) const {
  std::vector<int64_t> all;
  if (shuffle_) {
    all = detail::permutation(n_, seed_, epoch + 1);  // RandomSampler's streams: the same order for a given seed
  } else {
    all.resize(static_cast<size_t>(n_));
    std::iota(all.begin(), all.end(), int64_t{0});
  }
  const size_t total = static_cast<size_t>(total_size());
  if (all.size() > total) {
    all.resize(total);  // drop_last: the tail goes
  } else if (!all.empty()) {
    // Pad by cycling from the start (more than one cycle when n < padding, as torch does).
    for (size_t i = 0; all.size() < total; ++i) all.push_back(all[i]);
  }
  std::vector<int64_t> mine;
  mine.reserve(static_cast<size_t>(per_rank_));
  for (size_t i = static_cast<size_t>(rank_); i < all.size(); i += static_cast<size_t>(num_replicas_))
    mine.push_back(all[i]);
  return mine;
}

}  // namespace nabla::data

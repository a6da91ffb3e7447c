// Samplers (see sampler.h).
#include "nabla/data/sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "nabla/core/error.h"
#include "nabla/data/permutation.h"

namespace nabla::data {

SequentialSampler::SequentialSampler(int64_t n) : n_(n) {
  NABLA_CHECK(n >= 0, "SequentialSampler: size must be non-negative, got ", n);
}

std::vector<int64_t> SequentialSampler::indices(uint64_t) const {
  std::vector<int64_t> v(static_cast<size_t>(n_));
  std::iota(v.begin(), v.end(), int64_t{0});
  return v;
}

RandomSampler::RandomSampler(int64_t n, uint64_t seed) : n_(n), seed_(seed) {
  NABLA_CHECK(n >= 0, "RandomSampler: size must be non-negative, got ", n);
}

// Stream 0 is random_split's; epochs use streams 1, 2, ...
std::vector<int64_t> RandomSampler::indices(uint64_t epoch) const { return detail::permutation(n_, seed_, epoch + 1); }

WeightedRandomSampler::WeightedRandomSampler(std::vector<double> weights, int64_t num_samples, uint64_t seed)
    : num_samples_(num_samples), seed_(seed) {
  NABLA_CHECK(num_samples >= 0, "WeightedRandomSampler: num_samples must be non-negative, got ", num_samples);
  double total = 0;
  for (double w : weights) {
    NABLA_CHECK(w >= 0 && w < INFINITY, "WeightedRandomSampler: weights must be finite and non-negative, got ", w);
    total += w;
    cumulative_.push_back(total);
  }
  NABLA_CHECK(total > 0, "WeightedRandomSampler: weights must not all be zero (got ", weights.size(), " weights)");
}

std::vector<int64_t> WeightedRandomSampler::indices(uint64_t epoch) const {
  std::vector<int64_t> v(static_cast<size_t>(num_samples_));
  const double total = cumulative_.back();
  for (int64_t k = 0; k < num_samples_; ++k) {
    const double u = detail::uniform(seed_, epoch + 1, k) * total;
    // First i with cumulative[i] > u: never an index of zero weight.
    const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), u);
    v[k] = std::min<int64_t>(it - cumulative_.begin(), static_cast<int64_t>(cumulative_.size()) - 1);
  }
  return v;
}

BatchSampler::BatchSampler(SamplerPtr sampler, int64_t batch_size, bool drop_last)
    : sampler_(std::move(sampler)), batch_size_(batch_size), drop_last_(drop_last) {
  NABLA_CHECK(sampler_ != nullptr, "BatchSampler: sampler is null");
  NABLA_CHECK(batch_size >= 1, "BatchSampler: batch_size must be at least 1, got ", batch_size);
}

int64_t BatchSampler::size() const {
  const int64_t n = sampler_->size();
  return drop_last_ ? n / batch_size_ : (n + batch_size_ - 1) / batch_size_;
}

std::vector<std::vector<int64_t>> BatchSampler::batches(uint64_t epoch) const {
  const std::vector<int64_t> idx = sampler_->indices(epoch);
  std::vector<std::vector<int64_t>> out;
  for (size_t start = 0; start < idx.size(); start += batch_size_) {
    const size_t stop = std::min(idx.size(), start + batch_size_);
    if (drop_last_ && stop - start < static_cast<size_t>(batch_size_)) break;
    out.emplace_back(idx.begin() + start, idx.begin() + stop);
  }
  return out;
}

}  // namespace nabla::data

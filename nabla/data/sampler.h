// Samplers: the order in which a DataLoader visits dataset indices, per epoch.
// A Sampler is stateless: indices(epoch) is a pure function of its settings and
// the epoch, so loaders with any number of workers see the same order, and a
// run can be resumed at any epoch.
//   SequentialSampler      0, 1, ..., n-1 every epoch
//   RandomSampler          a permutation, new each epoch, from (seed, epoch)
//   WeightedRandomSampler  num_samples draws with replacement, P(i) ~ weights[i]
//   BatchSampler           groups a sampler's indices into batches (drop_last)
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

namespace nabla::data {

class Sampler {
 public:
  virtual ~Sampler() = default;
  virtual int64_t size() const = 0;  // indices per epoch
  virtual std::vector<int64_t> indices(uint64_t epoch) const = 0;
};
using SamplerPtr = std::shared_ptr<const Sampler>;

class SequentialSampler : public Sampler {
 public:
  explicit SequentialSampler(int64_t n);
  int64_t size() const override { return n_; }
  std::vector<int64_t> indices(uint64_t epoch) const override;

 private:
  int64_t n_;
};

class RandomSampler : public Sampler {
 public:
  RandomSampler(int64_t n, uint64_t seed);
  int64_t size() const override { return n_; }
  std::vector<int64_t> indices(uint64_t epoch) const override;

 private:
  int64_t n_;
  uint64_t seed_;
};

class WeightedRandomSampler : public Sampler {
 public:
  // weights: non-negative, not all zero (need not sum to 1).
  WeightedRandomSampler(std::vector<double> weights, int64_t num_samples, uint64_t seed);
  int64_t size() const override { return num_samples_; }
  std::vector<int64_t> indices(uint64_t epoch) const override;

 private:
  std::vector<double> cumulative_;
  int64_t num_samples_;
  uint64_t seed_;
};

class BatchSampler {
 public:
  BatchSampler(SamplerPtr sampler, int64_t batch_size, bool drop_last);
  int64_t size() const;  // batches per epoch
  std::vector<std::vector<int64_t>> batches(uint64_t epoch) const;

 private:
  SamplerPtr sampler_;
  int64_t batch_size_;
  bool drop_last_;
};

}  // namespace nabla::data

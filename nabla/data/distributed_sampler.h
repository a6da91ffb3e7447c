// DistributedSampler: the shard of a dataset's indices that one rank of a
// data-parallel job visits each epoch (PyTorch's DistributedSampler). It needs
// no MPI: num_replicas and rank are arguments (ProcessGroup::size()/rank()
// when under mpirun), so libnabla stays free of libmpi.
//   shuffle=false  0..n-1; shuffle=true a permutation from (seed, epoch), so
//                  every rank draws the same one and passing a new epoch to
//                  indices() is PyTorch's set_epoch() (Samplers are stateless).
//   drop_last=false  the list is padded by repeating it from its start up to a
//                    multiple of num_replicas (some samples seen twice);
//   drop_last=true   the tail is dropped down to a multiple of num_replicas.
// Rank r takes every num_replicas-th index from position r, so the shards are
// disjoint when num_replicas divides n (and always when drop_last).
// The shuffled order is nabla's Philox permutation (RandomSampler's), not
// torch's randperm: the same shard structure, a different random order.
#pragma once
#include "nabla/data/sampler.h"

namespace nabla::data {

class DistributedSampler : public Sampler {
 public:
  DistributedSampler(int64_t n, int64_t num_replicas, int64_t rank, bool shuffle = true, uint64_t seed = 0,
                     bool drop_last = false);
  int64_t size() const override { return per_rank_; }  // PyTorch's len(): indices per rank and epoch
  std::vector<int64_t> indices(uint64_t epoch) const override;
  int64_t total_size() const { return per_rank_ * num_replicas_; }

 private:
  int64_t n_, num_replicas_, rank_;
  bool shuffle_;
  uint64_t seed_;
  int64_t per_rank_;  // drop_last lives on in it: below n / num_replicas rounded up, the tail is dropped
};

}  // namespace nabla::data

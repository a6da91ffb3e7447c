// DataLoader: iterates over a dataset in batches.
//
//   DataLoader loader(dataset, {.batch_size = 32, .shuffle = true, .seed = 1, .num_workers = 2});
//   for (int epoch = 0; epoch < 10; ++epoch)
//     for (const Example& batch : loader) train_step(batch.data, batch.target);
//
// Each begin() starts a new epoch (a shuffling loader draws a new order from
// (seed, epoch)). With num_workers > 0, worker threads build batches ahead, at
// most num_workers * prefetch_factor at a time, and batches still arrive in
// sampler order: the same seed gives the same batches for any num_workers. An
// exception thrown while building a batch (dataset get() or collate) is
// rethrown from the iterator when that batch is due. Destroying the iterator
// early (break) stops and joins its workers; an iterator does not need its
// loader to stay alive.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "nabla/data/dataset.h"
#include "nabla/data/sampler.h"

namespace nabla::data {

using CollateFn = std::function<Example(std::vector<Example>)>;

// Stacks data (and target, when every example has one) along a new dim 0.
Example default_collate(std::vector<Example> examples);

struct DataLoaderOptions {
  int64_t batch_size = 1;
  bool shuffle = false;  // RandomSampler(seed) instead of SequentialSampler
  uint64_t seed = 0;
  bool drop_last = false;   // drop a last, smaller batch
  int num_workers = 0;      // 0: batches are built on the calling thread
  int prefetch_factor = 2;  // batches in flight per worker
  CollateFn collate = {};   // empty: default_collate
  SamplerPtr sampler = {};  // if set, used instead of shuffle/seed
  // Collated batches are copied into pinned (page-locked) host memory by the
  // worker that builds them, so that a device copies them asynchronously
  // (DevicePrefetcher, Tensor::to(device, true)). Where no device has pinned
  // memory it does nothing (PyTorch warns and does the same).
  bool pin_memory = false;
};

namespace detail {
struct EpochState;
}

class DataLoader {
 public:
  struct Sentinel {};
  class Iterator {
   public:
    explicit Iterator(std::shared_ptr<detail::EpochState> state);
    const Example& operator*() const { return current_; }
    const Example* operator->() const { return &current_; }
    Iterator& operator++();
    bool operator==(Sentinel) const { return done_; }

   private:
    void fetch();
    std::shared_ptr<detail::EpochState> state_;
    Example current_;
    bool done_ = false;
  };

  DataLoader(DatasetPtr dataset, DataLoaderOptions options = {});
  Iterator begin();  // starts the next epoch
  Sentinel end() const { return {}; }
  int64_t size() const { return batch_sampler_.size(); }  // batches per epoch
  uint64_t epoch() const { return epoch_; }               // the epoch the next begin() starts
  void set_epoch(uint64_t epoch) { epoch_ = epoch; }
  // The next begin() starts at batch `batch` of its epoch, in the same order,
  // without building the batches before it (resuming a run mid-epoch:
  // train::BackupAndRestore); later epochs start at batch 0 again. A batch
  // past the last gives an empty epoch.
  void set_start_batch(int64_t batch);
  const DataLoaderOptions& options() const { return options_; }

 private:
  DatasetPtr dataset_;
  DataLoaderOptions options_;
  BatchSampler batch_sampler_;
  uint64_t epoch_ = 0;
  int64_t start_batch_ = 0;
};

}  // namespace nabla::data

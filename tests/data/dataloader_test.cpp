// DataLoader: every sample once per epoch, the same order for any number of
// workers, reshuffling per epoch, worker errors reaching the loop, early exit
// without deadlock or leaked threads, drop_last and collation.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "nabla/nabla.h"

namespace nabla::data {
namespace {

std::shared_ptr<TensorDataset> range_dataset(int64_t n) {
  return std::make_shared<TensorDataset>(arange(n * 3).view({n, 3}), arange(n));
}

// Every target of every batch of one epoch, in order.
std::vector<int64_t> epoch_targets(DataLoader& loader) {
  std::vector<int64_t> out;
  for (const Example& b : loader) {
    auto t = b.target.to_vector<int64_t>();
    out.insert(out.end(), t.begin(), t.end());
  }
  return out;
}

// Throws from get(bad); counts calls.
class FlakyDataset : public Dataset {
 public:
  FlakyDataset(int64_t n, int64_t bad) : n_(n), bad_(bad) {}
  int64_t size() const override { return n_; }
  Example get(int64_t i) const override {
    ++calls;
    if (i == bad_) throw std::runtime_error("cannot decode sample " + std::to_string(i));
    return {full({2}, double(i)), full({}, double(i), dtype(kInt64))};
  }
  mutable std::atomic<int64_t> calls{0};

 private:
  int64_t n_, bad_;
};

int64_t thread_count() {
  int64_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

TEST(DataLoader, EachSampleOncePerEpochInBatches) {
  auto ds = range_dataset(103);
  for (int workers : {0, 1, 4}) {
    DataLoader loader(ds, {.batch_size = 10, .shuffle = true, .seed = 3, .num_workers = workers});
    EXPECT_EQ(loader.size(), 11);
    for (int epoch = 0; epoch < 2; ++epoch) {
      std::vector<int64_t> seen;
      int64_t batches = 0;
      for (const Example& b : loader) {
        EXPECT_EQ(b.data.sizes(), (Shape{batches == 10 ? 3 : 10, 3}));
        auto t = b.target.to_vector<int64_t>();
        auto d = b.data.select(1, 0).to_vector<int64_t>();
        for (size_t k = 0; k < t.size(); ++k) EXPECT_EQ(d[k], 3 * t[k]);  // data and target stay paired
        seen.insert(seen.end(), t.begin(), t.end());
        ++batches;
      }
      EXPECT_EQ(batches, 11);
      std::sort(seen.begin(), seen.end());
      for (int64_t i = 0; i < 103; ++i) ASSERT_EQ(seen[i], i) << "workers " << workers;
    }
  }
}

TEST(DataLoader, SameSeedSameBatchesForAnyWorkerCountNewOrderEachEpoch) {
  auto ds = range_dataset(200);
  std::vector<std::vector<int64_t>> reference;
  for (int workers : {0, 1, 4}) {
    DataLoader loader(ds, {.batch_size = 7, .shuffle = true, .seed = 11, .num_workers = workers, .prefetch_factor = 1});
    std::vector<std::vector<int64_t>> epochs = {epoch_targets(loader), epoch_targets(loader), epoch_targets(loader)};
    EXPECT_NE(epochs[0], epochs[1]);
    EXPECT_NE(epochs[1], epochs[2]);
    if (reference.empty()) reference = epochs;
    EXPECT_EQ(epochs, reference) << "workers " << workers;
  }
  DataLoader other(ds, {.batch_size = 7, .shuffle = true, .seed = 12});
  EXPECT_NE(epoch_targets(other), reference[0]);
  DataLoader resumed(ds, {.batch_size = 7, .shuffle = true, .seed = 11, .num_workers = 2});
  resumed.set_epoch(2);
  EXPECT_EQ(epoch_targets(resumed), reference[2]);
  DataLoader sequential(ds, {.batch_size = 50, .num_workers = 2});
  auto seq = epoch_targets(sequential);
  EXPECT_TRUE(std::is_sorted(seq.begin(), seq.end()));
}

TEST(DataLoader, SetStartBatchResumesAnEpochMidWayWithoutBuildingTheSkippedBatches) {
  auto counting = std::make_shared<FlakyDataset>(50, -1);
  for (int workers : {0, 2}) {
    DataLoader full(counting, {.batch_size = 8, .shuffle = true, .seed = 5, .num_workers = workers});
    full.set_epoch(3);
    std::vector<int64_t> whole = epoch_targets(full);
    DataLoader resumed(counting, {.batch_size = 8, .shuffle = true, .seed = 5, .num_workers = workers});
    resumed.set_epoch(3);
    resumed.set_start_batch(4);  // 7 batches: 4 skipped, 16 + 2 samples left
    counting->calls = 0;
    std::vector<int64_t> tail = epoch_targets(resumed);
    EXPECT_EQ(counting->calls, 18) << "workers " << workers;
    EXPECT_EQ(tail, std::vector<int64_t>(whole.begin() + 32, whole.end())) << "workers " << workers;
    EXPECT_EQ(epoch_targets(resumed).size(), 50u);  // the next epoch starts at batch 0
    resumed.set_start_batch(7);                     // past the last batch: an empty epoch
    EXPECT_TRUE(epoch_targets(resumed).empty());
  }
  DataLoader loader(counting, {.batch_size = 8});
  EXPECT_THROW(loader.set_start_batch(-1), Error);
}

TEST(DataLoader, WorkerExceptionReachesTheLoopWithItsMessage) {
  for (int workers : {0, 1, 3}) {
    auto ds = std::make_shared<FlakyDataset>(100, 42);
    DataLoader loader(ds, {.batch_size = 8, .num_workers = workers});
    int64_t delivered = 0;
    try {
      for (const Example& b : loader) {
        (void)b;
        ++delivered;
      }
      ADD_FAILURE() << "no exception with " << workers << " workers";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "cannot decode sample 42");
    }
    EXPECT_EQ(delivered, 5);  // batches 0-4 arrive; batch 5 holds sample 42
  }
  // A collate error as well, from a worker.
  DataLoader bad(range_dataset(10), {.batch_size = 2, .num_workers = 2, .collate = [](std::vector<Example>) -> Example {
                                       throw Error("collate failed");
                                     }});
  EXPECT_THROW(
      {
        try {
          bad.begin();
        } catch (const Error& e) {
          EXPECT_STREQ(e.what(), "collate failed");
          throw;
        }
      },
      Error);
}

TEST(DataLoader, EarlyBreakAndDestructionNeitherDeadlockNorLeakThreads) {
  auto ds = range_dataset(1000);
  {
    DataLoader warm(ds, {.batch_size = 1, .num_workers = 4});
    epoch_targets(warm);
  }
  const int64_t threads_before = thread_count();
  {
    DataLoader loader(ds, {.batch_size = 1, .shuffle = true, .num_workers = 4, .prefetch_factor = 2});
    ASSERT_EQ(loader.size(), 1000);
    int64_t n = 0;
    for (const Example& b : loader) {
      (void)b;
      if (++n == 1) break;
    }
    EXPECT_EQ(n, 1);
    auto it = loader.begin();  // an iterator outliving its loader
    auto loader2 = std::make_unique<DataLoader>(ds, DataLoaderOptions{.batch_size = 3, .num_workers = 2});
    auto it2 = loader2->begin();
    loader2.reset();
    ++it2;
    EXPECT_EQ(it2->data.size(0), 3);
  }
  EXPECT_EQ(thread_count(), threads_before);
}

TEST(DataLoader, PrefetchIsBounded) {
  auto ds = std::make_shared<FlakyDataset>(1000, -1);
  DataLoader loader(ds, {.batch_size = 4, .num_workers = 2, .prefetch_factor = 3});
  auto it = loader.begin();  // batch 0 delivered
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  // Batches 1..6 (capacity 2*3) may be built; never more, however long we wait.
  EXPECT_LE(ds->calls.load(), (1 + 6) * 4);
}

TEST(DataLoader, DropLastAndCollation) {
  auto ds = range_dataset(10);
  DataLoader keep(ds, {.batch_size = 4}), drop(ds, {.batch_size = 4, .drop_last = true, .num_workers = 2});
  EXPECT_EQ(keep.size(), 3);
  EXPECT_EQ(drop.size(), 2);
  std::vector<int64_t> sizes;
  for (const Example& b : drop) sizes.push_back(b.data.size(0));
  EXPECT_EQ(sizes, (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(epoch_targets(keep).size(), 10u);
  DataLoader unlabelled(std::make_shared<TensorDataset>(ones({5, 2, 2})), {.batch_size = 5});
  auto it = unlabelled.begin();
  const Example& b = *it;
  EXPECT_EQ(b.data.sizes(), (Shape{5, 2, 2}));
  EXPECT_FALSE(b.target.defined());
  DataLoader summed(ds, {.batch_size = 5, .collate = [](std::vector<Example> ex) {
                           return Example{default_collate(std::move(ex)).data.sum(), Tensor()};
                         }});
  EXPECT_EQ((*summed.begin()).data.item<int64_t>(), 105);  // 0 + 1 + ... + 14
  DataLoader empty_loader(range_dataset(0), {.batch_size = 4, .num_workers = 2});
  EXPECT_TRUE(epoch_targets(empty_loader).empty());
  EXPECT_THROW(DataLoader(ds, {.batch_size = 0}), Error);
  EXPECT_THROW(DataLoader(ds, {.num_workers = -1}), Error);
}

TEST(DataLoader, CustomSampler) {
  auto ds = range_dataset(4);
  DataLoader loader(
      ds, {.batch_size = 2, .sampler = std::make_shared<WeightedRandomSampler>(std::vector<double>{0, 0, 1, 0}, 6, 1)});
  EXPECT_EQ(epoch_targets(loader), (std::vector<int64_t>{2, 2, 2, 2, 2, 2}));
}

}  // namespace
}  // namespace nabla::data

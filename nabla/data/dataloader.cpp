// DataLoader: the epoch state shared by an iterator and its worker threads.
//
// Batch k of an epoch is built by one worker (or by the caller when there are
// none). Workers take the next batch number only while it is less than
// delivered + capacity, so built-but-undelivered batches never exceed the
// capacity; finished batches wait in a map keyed by batch number and are handed
// out in order. Destruction sets stop, wakes every worker and joins them; a
// worker in the middle of a batch finishes that batch first.
#include "nabla/data/dataloader.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include "nabla/core/backend.h"
#include "nabla/core/error.h"
#include "nabla/data/sample_context.h"
#include "nabla/ops/indexing.h"

namespace nabla::data {

Example default_collate(std::vector<Example> examples) {
  NABLA_CHECK(!examples.empty(), "default_collate: no examples");
  std::vector<Tensor> data, target;
  data.reserve(examples.size());
  bool all_targets = true;
  for (auto& e : examples) {
    NABLA_CHECK(e.data.defined(), "default_collate: an example has no data");
    data.push_back(std::move(e.data));
    all_targets = all_targets && e.target.defined();
    if (all_targets) target.push_back(std::move(e.target));
  }
  return {stack(data, 0), all_targets ? stack(target, 0) : Tensor()};
}

namespace detail {

struct EpochState {
  DatasetPtr dataset;
  CollateFn collate;
  bool pin_memory = false;
  SampleContext context;  // seen by the dataset's random transforms
  std::vector<std::vector<int64_t>> batches;
  int64_t delivered = 0;  // batches handed to the iterator

  struct Result {
    Example batch;
    std::exception_ptr error;
  };
  std::mutex mu;
  std::condition_variable work_cv, ready_cv;
  int64_t next_batch = 0;  // next batch number a worker takes
  int64_t capacity = 0;
  bool stop = false;
  std::map<int64_t, Result> ready;
  std::vector<std::thread> workers;

  int64_t num_batches() const { return static_cast<int64_t>(batches.size()); }

  Example build(int64_t k) const {
    SampleContextGuard guard(context);
    std::vector<Example> examples;
    examples.reserve(batches[k].size());
    for (int64_t i : batches[k]) examples.push_back(dataset->get(i));
    Example batch = collate(std::move(examples));
    if (pin_memory) {
      if (batch.data.defined()) batch.data = batch.data.pin_memory();
      if (batch.target.defined()) batch.target = batch.target.pin_memory();
    }
    return batch;
  }

  void start(int num_workers, int prefetch_factor) {
    capacity = int64_t(num_workers) * prefetch_factor;
    workers.reserve(num_workers);
    try {
      for (int w = 0; w < num_workers; ++w) workers.emplace_back([this] { work(); });
    } catch (...) {
      shutdown();
      throw;
    }
  }

  void work() {
    std::unique_lock lock(mu);
    for (;;) {
      work_cv.wait(lock, [&] { return stop || next_batch >= num_batches() || next_batch < delivered + capacity; });
      if (stop || next_batch >= num_batches()) return;
      const int64_t k = next_batch++;
      lock.unlock();
      Result r;
      try {
        r.batch = build(k);
      } catch (...) {
        r.error = std::current_exception();
      }
      lock.lock();
      ready.emplace(k, std::move(r));
      ready_cv.notify_all();
    }
  }

  // The next batch in order; throws what building it threw.
  Example next() {
    if (workers.empty()) return build(delivered++);
    std::unique_lock lock(mu);
    ready_cv.wait(lock, [&] { return ready.count(delivered) != 0; });
    auto node = ready.extract(delivered);
    ++delivered;
    lock.unlock();
    work_cv.notify_all();
    if (node.mapped().error) std::rethrow_exception(node.mapped().error);
    return std::move(node.mapped().batch);
  }

  void shutdown() {
    {
      std::lock_guard lock(mu);
      stop = true;
    }
    work_cv.notify_all();
    for (auto& t : workers) t.join();
    workers.clear();
  }

  ~EpochState() { shutdown(); }
};

}  // namespace detail

DataLoader::Iterator::Iterator(std::shared_ptr<detail::EpochState> state) : state_(std::move(state)) { fetch(); }

DataLoader::Iterator& DataLoader::Iterator::operator++() {
  fetch();
  return *this;
}

void DataLoader::Iterator::fetch() {
  current_ = Example();
  if (state_->delivered >= state_->num_batches()) {
    done_ = true;
    state_.reset();  // joins the workers now, not when the iterator dies
    return;
  }
  current_ = state_->next();
}

namespace {
// Whether some device has pinned host memory (else pin_memory does nothing).
bool pinned_memory_available() {
  for (const DeviceInfo& d : devices())
    if (!d.device.is_cpu() && find_backend(d.device.type)->pinned_allocator()) return true;
  return false;
}

SamplerPtr make_sampler(const DatasetPtr& dataset, const DataLoaderOptions& o) {
  NABLA_CHECK(dataset != nullptr, "DataLoader: dataset is null");
  NABLA_CHECK(o.num_workers >= 0, "DataLoader: num_workers must be non-negative, got ", o.num_workers);
  NABLA_CHECK(o.prefetch_factor >= 1, "DataLoader: prefetch_factor must be at least 1, got ", o.prefetch_factor);
  if (o.sampler) return o.sampler;
  if (o.shuffle) return std::make_shared<RandomSampler>(dataset->size(), o.seed);
  return std::make_shared<SequentialSampler>(dataset->size());
}
}  // namespace

DataLoader::DataLoader(DatasetPtr dataset, DataLoaderOptions options)
    : dataset_(std::move(dataset)),
      options_(std::move(options)),
      batch_sampler_(make_sampler(dataset_, options_), options_.batch_size, options_.drop_last) {
  if (!options_.collate) options_.collate = default_collate;
}

void DataLoader::set_start_batch(int64_t batch) {
  NABLA_CHECK(batch >= 0, "DataLoader::set_start_batch: batch must be >= 0, got ", batch);
  start_batch_ = batch;
}

DataLoader::Iterator DataLoader::begin() {
  auto state = std::make_shared<detail::EpochState>();
  state->dataset = dataset_;
  state->collate = options_.collate;
  state->pin_memory = options_.pin_memory && pinned_memory_available();
  state->context = {options_.seed, epoch_};
  state->batches = batch_sampler_.batches(epoch_++);
  // Skipped batches count as delivered: workers start at the first one wanted.
  state->delivered = state->next_batch = std::min(start_batch_, state->num_batches());
  start_batch_ = 0;
  if (options_.num_workers > 0 && !state->batches.empty()) state->start(options_.num_workers, options_.prefetch_factor);
  return Iterator(std::move(state));
}

}  // namespace nabla::data

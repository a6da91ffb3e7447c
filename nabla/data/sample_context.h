// SampleContext: what a DataLoader tells the datasets it reads while it builds
// a batch — its seed and the epoch — so random per-sample transforms
// (transforms.h) draw from a stream keyed by (seed, epoch, index). The same
// loader seed then gives the same augmented samples for any num_workers, and
// a new epoch gives new ones. Like PyTorch's get_worker_info(), it is
// thread-local: the loader sets it on whichever thread builds the batch.
// Outside a loader the context is {seed 0, epoch 0}.
#pragma once
#include <cstdint>

namespace nabla::data {

struct SampleContext {
  uint64_t seed = 0;
  uint64_t epoch = 0;
};

SampleContext current_sample_context();

// Sets the calling thread's context for its lifetime, then restores the previous one.
class SampleContextGuard {
 public:
  explicit SampleContextGuard(SampleContext context);
  ~SampleContextGuard();
  SampleContextGuard(const SampleContextGuard&) = delete;
  SampleContextGuard& operator=(const SampleContextGuard&) = delete;

 private:
  SampleContext previous_;
};

}  // namespace nabla::data

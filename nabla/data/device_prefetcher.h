// DevicePrefetcher: iterates a DataLoader with its batches already on a
// device. While the caller computes on batch k, batch k+1 is being copied to
// the device on a queue of the prefetcher's own (PyTorch's pin_memory +
// non_blocking copies; TensorFlow's prefetch_to_device), and an event orders
// the compute queue after that copy when the batch is handed out. With a
// pinned loader (DataLoaderOptions::pin_memory) the copies are asynchronous;
// otherwise each copy is done when it is issued.
//
//   DataLoader loader(dataset, {.batch_size = 64, .shuffle = true, .num_workers = 2, .pin_memory = true});
//   for (const Example& batch : DevicePrefetcher(loader, Device("opencl")))
//     train_step(batch.data, batch.target);   // on the device
#pragma once
#include <cstdint>
#include <optional>

#include "nabla/core/backend.h"
#include "nabla/data/dataloader.h"

namespace nabla::data {

class DevicePrefetcher {
 public:
  struct Sentinel {};
  class Iterator {
   public:
    Iterator(DataLoader::Iterator inner, Device device);
    const Example& operator*() const { return current_; }
    const Example* operator->() const { return &current_; }
    Iterator& operator++();
    bool operator==(Sentinel) const { return done_; }

   private:
    struct InFlight {
      Example batch;      // on the device, possibly still being copied
      Ref<Event> copied;  // on the copy queue, after the batch's copies
    };
    void start_next();  // issues the copies of the loader's next batch
    DataLoader::Iterator inner_;
    Device device_;
    Backend* backend_;
    Queue copy_queue_;
    std::optional<InFlight> next_;
    Example current_;
    bool done_ = false;
  };

  // `loader` must outlive the iteration; each begin() starts its next epoch.
  DevicePrefetcher(DataLoader& loader, Device device);
  Iterator begin();
  Sentinel end() const { return {}; }
  int64_t size() const { return loader_.size(); }
  Device device() const { return device_; }

 private:
  DataLoader& loader_;
  Device device_;
};

}  // namespace nabla::data

#include "nabla/data/device_prefetcher.h"

#include "nabla/core/tensor.h"
#include "nabla/ops/ops.h"

namespace nabla::data {
namespace {

// t on `device`, copied on `queue`: asynchronously from pinned memory (the
// backend holds the host block until the copy is done).
Tensor copy_on_queue(const Tensor& t, Device device, Backend& backend, Queue queue) {
  if (!t.defined() || t.device() == device) return t;
  NABLA_CHECK(t.device().is_cpu(), "DevicePrefetcher: a batch tensor is on ", t.device(),
              "; the loader's batches must be on the host");
  const Tensor src = t.contiguous();
  Tensor dst = make_empty(src.sizes(), src.dtype(), device, "DevicePrefetcher");
  const std::size_t bytes = static_cast<std::size_t>(src.numel()) * itemsize(src.dtype());
  if (bytes == 0) return dst;
  const bool pinned = src.is_pinned();
  backend.copy(mem_ref(dst), mem_ref(src), bytes, queue, pinned,
               pinned ? Ref<RefCounted>(src.impl()->storage) : nullptr);
  return dst;
}

}  // namespace

DevicePrefetcher::DevicePrefetcher(DataLoader& loader, Device device) : loader_(loader), device_(device) {
  backend_for(device, "DevicePrefetcher");
}

DevicePrefetcher::Iterator DevicePrefetcher::begin() { return Iterator(loader_.begin(), device_); }

DevicePrefetcher::Iterator::Iterator(DataLoader::Iterator inner, Device device)
    : inner_(std::move(inner)), device_(device), backend_(&backend_for(device, "DevicePrefetcher")),
      copy_queue_(backend_->new_queue(device.index)) {
  start_next();
  ++*this;
}

void DevicePrefetcher::Iterator::start_next() {
  if (inner_ == DataLoader::Sentinel{}) return;
  // The copy's memory may come from blocks the compute queue freed with work
  // still pending on them: the copy waits for what is enqueued there so far.
  const Queue compute{device_, 0};
  if (copy_queue_.id != compute.id) backend_->wait(copy_queue_, *backend_->record(compute));
  InFlight f;
  f.batch.data = copy_on_queue(inner_->data, device_, *backend_, copy_queue_);
  f.batch.target = copy_on_queue(inner_->target, device_, *backend_, copy_queue_);
  f.copied = backend_->record(copy_queue_);
  next_ = std::move(f);
  ++inner_;
}

DevicePrefetcher::Iterator& DevicePrefetcher::Iterator::operator++() {
  if (!next_) {
    current_ = Example();
    done_ = true;
    return *this;
  }
  // Ops on this batch (on the compute queue) run after its copies.
  backend_->wait(Queue{device_, 0}, *next_->copied);
  current_ = std::move(next_->batch);
  next_.reset();
  start_next();  // batch k+1's copies go out while the caller computes on batch k
  return *this;
}

}  // namespace nabla::data

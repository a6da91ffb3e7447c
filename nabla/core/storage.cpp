#include "nabla/core/storage.h"

namespace nabla {

Storage::Storage(std::size_t nbytes, Device device)
    : nbytes_(nbytes), device_(device), allocator_(allocator_for(device)) {
  data_ = allocator_->allocate(nbytes);
}

Storage::Storage(std::size_t nbytes, Allocator* allocator, bool pinned)
    : nbytes_(nbytes), device_(kCPU), allocator_(allocator), pinned_(pinned) {
  data_ = allocator_->allocate(nbytes);
}

Storage::Storage(void* borrowed, std::size_t nbytes, Device device)
    : data_(borrowed), nbytes_(nbytes), device_(device) {}

Storage::~Storage() {
  if (allocator_) allocator_->deallocate(data_, nbytes_);
}

}  // namespace nabla

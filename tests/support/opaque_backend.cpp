#include "support/opaque_backend.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "nabla/core/backend.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla::testing {
namespace {

// A handle is the host pointer with its top 16 bits flipped: a non-canonical
// x86-64 address, so dereferencing it faults.
constexpr uintptr_t kTag = uintptr_t{0xA5A5} << 48;
void* to_handle(void* p) { return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(p) ^ kTag); }
char* to_host(void* h) { return reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(h) ^ kTag); }

std::mutex g_mu;
OpaqueStats g_stats;

// Caches freed blocks by exact size (enough for a test device), so a training
// step in steady state allocates nothing new.
class OpaqueAllocator final : public Allocator {
 public:
  void* allocate(std::size_t n) override {
    std::lock_guard lock(g_mu);
    auto it = free_.find(n);
    if (it != free_.end()) {
      void* p = it->second;
      free_.erase(it);
      return to_handle(p);
    }
    ++g_stats.driver_allocations;
    void* p = std::malloc(n ? n : 1);
    if (!p) throw OutOfMemoryError("opaque: out of memory", n);
    blocks_.push_back(p);
    return to_handle(p);
  }
  void deallocate(void* h, std::size_t n) noexcept override {
    std::lock_guard lock(g_mu);
    free_.emplace(n, to_host(h));
  }

 private:
  std::multimap<std::size_t, void*> free_;  // cached blocks, as host pointers
  // Every block ever taken, as a plain pointer: handles hide their blocks
  // from LeakSanitizer, which would report the cache and live tensors.
  std::vector<void*> blocks_;
};

class PinnedAllocator final : public Allocator {
 public:
  void* allocate(std::size_t n) override {
    void* p = std::malloc(n ? n : 1);
    if (!p) throw OutOfMemoryError("opaque: out of pinned memory", n);
    return p;
  }
  void deallocate(void* p, std::size_t) noexcept override { std::free(p); }
};

class DoneEvent final : public Event {
 public:
  void synchronize() override {}
  bool query() override { return true; }
};

class OpaqueBackend final : public Backend {
 public:
  DeviceType type() const override { return DeviceType::Opaque; }
  int device_count() override { return 2; }
  DeviceInfo device_info(int index) override {
    return {Device(DeviceType::Opaque, static_cast<int16_t>(index)), "opaque test device", int64_t{1} << 34};
  }
  Allocator* allocator(int index) override { return &allocators_[index]; }
  Allocator* pinned_allocator() override { return &pinned_; }
  void copy(MemRef dst, MemRef src, std::size_t bytes, Queue, bool, Ref<RefCounted>) override {
    char* d = dst.device.is_cpu() ? static_cast<char*>(dst.handle) : to_host(dst.handle);
    const char* s = src.device.is_cpu() ? static_cast<char*>(src.handle) : to_host(src.handle);
    std::memmove(d + dst.offset, s + src.offset, bytes);
    std::lock_guard lock(g_mu);
    if (src.device.is_cpu()) g_stats.host_to_device_bytes += static_cast<int64_t>(bytes);
    if (dst.device.is_cpu()) g_stats.device_to_host_bytes += static_cast<int64_t>(bytes);
  }
  void synchronize(int) override {}
  Ref<Event> record(Queue) override { return make_ref<DoneEvent>(); }
  void wait(Queue, Event&) override {}

 private:
  OpaqueAllocator allocators_[2];
  PinnedAllocator pinned_;
};

// Runs any op on the CPU: each operand storage gets one host copy (so inputs
// and outputs that share memory still share it), the CPU kernel runs on views
// of those copies with the operands' own sizes, strides and offsets, and the
// outputs' storages are copied back. A view op's output becomes the same view
// of the device storage.
void run_on_host(const OpDef& op, Inputs inputs, const Attrs& attrs, std::span<Tensor> outputs) {
  {
    std::lock_guard lock(g_mu);
    ++g_stats.fallback_calls;
  }
  std::unordered_map<const Storage*, Ref<Storage>> host_of;
  auto host_view = [&](const Tensor& t) -> Tensor {
    if (!t.defined() || t.device().is_cpu()) return t;
    const TensorImpl* p = t.impl();
    auto [it, fresh] = host_of.try_emplace(p->storage.get());
    if (fresh) {
      it->second = make_ref<Storage>(p->storage->nbytes(), kCPU);
      if (p->storage->nbytes()) std::memcpy(it->second->handle(), to_host(p->storage->handle()), p->storage->nbytes());
    }
    return Tensor(make_ref<TensorImpl>(it->second, p->sizes, p->strides, p->offset, p->dtype, kCPU));
  };
  TensorList host_in, host_out;
  for (const Tensor& t : inputs) host_in.push_back(host_view(t));
  for (const Tensor& t : outputs) host_out.push_back(host_view(t));
  run_cpu_kernel(op, Inputs(host_in.data(), host_in.size()), attrs, std::span<Tensor>(host_out.data(), host_out.size()));
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].defined()) {
      const Storage* dev = outputs[i].impl()->storage.get();
      std::memcpy(to_host(dev->handle()), host_of.at(dev)->handle(), dev->nbytes());
      continue;
    }
    // A view: find the device storage whose host copy it views.
    const TensorImpl* h = host_out[i].impl();
    Ref<Storage> dev_storage;
    for (const Tensor& t : inputs)
      if (t.defined() && !t.device().is_cpu() && host_of.at(t.impl()->storage.get()) == h->storage)
        dev_storage = t.impl()->storage;
    NABLA_CHECK(dev_storage, op.name, " on opaque: the CPU kernel returned a view of memory that is not an input's");
    outputs[i] = Tensor(make_ref<TensorImpl>(dev_storage, h->sizes, h->strides, h->offset, h->dtype, inputs[0].device()));
  }
}

OpaqueBackend& backend() {
  static OpaqueBackend* b = [] {
    auto* made = new OpaqueBackend();  // never destroyed: tensors may outlive statics
    register_backend(made);
    register_fallback(DeviceType::Opaque, run_on_host);
    return made;
  }();
  return *b;
}

}  // namespace

Device opaque_device(int index) {
  backend();
  return Device(DeviceType::Opaque, static_cast<int16_t>(index));
}

OpaqueStats opaque_stats() {
  std::lock_guard lock(g_mu);
  return g_stats;
}

void reset_opaque_stats() {
  std::lock_guard lock(g_mu);
  g_stats = {};
}

}  // namespace nabla::testing

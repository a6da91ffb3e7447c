// The CUDA Backend (core/backend.h): devices enumerated at first use, their
// primary contexts made current before each driver call, non-blocking
// streams, events, caching device memory, pinned host memory and copies in
// every direction. Registered (with nabla/cuda.h's runtime functions) by
// this library's static initializer, when libnabla loads it.
//
// Non-blocking copies keep their host side alive until an event recorded
// after the copy has completed; the event is checked on later calls (copy,
// record, synchronize). A host callback (cuLaunchHostFunc) would be more
// prompt, but the callback may make no CUDA call, and dropping the last
// reference to pinned memory can (the allocator may hand the block back to the
// driver).
#include <memory>
#include <vector>

#include "nabla/core/backend.h"
#include "nabla/core/cuda_library.h"
#include "nabla/kernels/accel/runtime.h"
#include "nabla/kernels/cuda/accel_runtime.h"
#include "nabla/kernels/cuda/cudnn.h"
#include "nabla/kernels/cuda/cudnn_conv.h"
#include "nabla/kernels/cuda/cuda_graph.h"
#include "nabla/kernels/cuda/memory.h"
#include "nabla/kernels/cuda/runtime.h"

namespace nabla::cuda {
namespace {

CUevent new_event() {
  CUevent e = nullptr;
  check(driver().cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  return e;
}

// ---- events ----------------------------------------------------------------

class CudaEvent final : public Event {
 public:
  CudaEvent(CUevent e, DeviceContext& device) : event_(e), device_(device) {}
  ~CudaEvent() override {
    const Driver& drv = driver();
    if (drv.cuCtxSetCurrent(device_.context) == CUDA_SUCCESS) drv.cuEventDestroy(event_);
  }
  void synchronize() override {
    device_.make_current();
    check(driver().cuEventSynchronize(event_), "cuEventSynchronize");
  }
  bool query() override {
    device_.make_current();
    CUresult r = driver().cuEventQuery(event_);
    if (r == CUDA_ERROR_NOT_READY) return false;
    check(r, "cuEventQuery");
    return true;
  }
  CUevent get() const { return event_; }

 private:
  CUevent event_;
  DeviceContext& device_;
};

// ---- the backend -------------------------------------------------------------

class CudaBackend final : public Backend {
 public:
  DeviceType type() const override { return DeviceType::CUDA; }
  int device_count() override { return present_device_count(); }
  std::string unavailable_reason() override { return unavailable_reason_text(); }
  DeviceInfo device_info(int index) override {
    DeviceContext& d = device(index);
    return {Device(DeviceType::CUDA, static_cast<int16_t>(index)),
            d.name + " (compute capability " + std::to_string(d.compute_major) + "." +
                std::to_string(d.compute_minor) + ", driver for CUDA " + std::to_string(d.driver_version / 1000) + "." +
                std::to_string(d.driver_version % 1000 / 10) + ")",
            d.total_memory};
  }
  Allocator* allocator(int index) override { return device(index, "allocate").allocator; }
  Allocator* pinned_allocator() override { return device_count() > 0 ? pinned() : nullptr; }

  void copy(MemRef dst, MemRef src, std::size_t bytes, Queue queue, bool non_blocking,
            Ref<RefCounted> keep_alive) override {
    reap();
    if (bytes == 0) return;
    DeviceContext& d = device(queue.device.index, "copy");
    const Device& on_device = src.device.is_cpu() ? dst.device : src.device;
    NABLA_CHECK(on_device == queue.device && (dst.device.is_cpu() || dst.device == queue.device), "cuda: copy from ",
                src.device, " to ", dst.device, " on a queue of ", queue.device,
                ": one side must be the queue's device and the other the same device or the cpu");
    d.make_current();
    CUstream s = d.stream(queue.id);
    const Driver& drv = driver();
    // Asynchronous only with pinned host memory: a pageable buffer may be
    // freed or changed by the caller before the driver has read it.
    bool async = non_blocking;
    if (src.device.is_cpu()) {
      async = non_blocking && pinned()->owns(src.handle);
      check(drv.cuMemcpyHtoDAsync(device_ptr(dst.handle, dst.offset), static_cast<const char*>(src.handle) + src.offset,
                                  bytes, s),
            "cuMemcpyHtoDAsync", "copying " + std::to_string(bytes) + " bytes to " + device_text(d));
    } else if (dst.device.is_cpu()) {
      async = non_blocking && pinned()->owns(dst.handle);
      check(drv.cuMemcpyDtoHAsync(static_cast<char*>(dst.handle) + dst.offset, device_ptr(src.handle, src.offset),
                                  bytes, s),
            "cuMemcpyDtoHAsync", "copying " + std::to_string(bytes) + " bytes from " + device_text(d));
    } else {
      check(drv.cuMemcpyDtoDAsync(device_ptr(dst.handle, dst.offset), device_ptr(src.handle, src.offset), bytes, s),
            "cuMemcpyDtoDAsync", "copying " + std::to_string(bytes) + " bytes on " + device_text(d));
    }
    if (!async) {
      check(drv.cuStreamSynchronize(s), "cuStreamSynchronize", "waiting for a copy on " + device_text(d));
      return;
    }
    if (!keep_alive) return;
    CUevent done = new_event();
    if (CUresult r = drv.cuEventRecord(done, s); r != CUDA_SUCCESS) {
      drv.cuEventDestroy(done);
      fail_cu("cuEventRecord", r, "after a copy on " + device_text(d));
    }
    std::lock_guard lock(pending_mu_);
    pending_.push_back({done, &d, std::move(keep_alive)});
  }

  void synchronize(int index) override {
    DeviceContext& d = device(index, "synchronize");
    d.make_current();
    check(driver().cuCtxSynchronize(), "cuCtxSynchronize", device_text(d));
    reap();
  }
  Queue new_queue(int index) override {
    return Queue{Device(DeviceType::CUDA, static_cast<int16_t>(index)), device(index, "new_queue").add_stream()};
  }
  Ref<Event> record(Queue queue) override {
    reap();
    DeviceContext& d = device(queue.device.index, "record");
    d.make_current();
    CUstream s = d.stream(queue.id);
    CUevent e = new_event();
    auto event = make_ref<CudaEvent>(e, d);  // destroys e if recording fails
    check(driver().cuEventRecord(e, s), "cuEventRecord");
    return event;
  }
  void wait(Queue queue, Event& event) override {
    auto* e = dynamic_cast<CudaEvent*>(&event);
    NABLA_CHECK(e, "cuda: wait: the event was not recorded on a CUDA queue");
    DeviceContext& d = device(queue.device.index, "wait");
    d.make_current();
    check(driver().cuStreamWaitEvent(d.stream(queue.id), e->get(), 0), "cuStreamWaitEvent");
  }

  PinnedHostAllocator* pinned() {
    std::call_once(pinned_once_, [&] { pinned_ = std::make_unique<PinnedHostAllocator>(); });
    return pinned_.get();
  }

 private:
  // Drops the host storages of asynchronous copies that are done (outside
  // the lock: the last reference to pinned memory frees it).
  void reap() {
    std::vector<Ref<RefCounted>> done;
    std::lock_guard lock(pending_mu_);
    const Driver& drv = driver();
    std::erase_if(pending_, [&](Pending& p) {
      if (drv.cuCtxSetCurrent(p.device->context) != CUDA_SUCCESS) return false;
      // Done, or failed (the error is sticky: the context reports it on its
      // next synchronizing call); only "not ready" keeps the host side.
      if (drv.cuEventQuery(p.event) == CUDA_ERROR_NOT_READY) return false;
      drv.cuEventDestroy(p.event);
      done.push_back(std::move(p.keep_alive));
      return true;
    });
  }

  struct Pending {
    CUevent event;
    DeviceContext* device;
    Ref<RefCounted> keep_alive;  // the host side of a non-blocking copy
  };
  std::once_flag pinned_once_;
  std::unique_ptr<PinnedHostAllocator> pinned_;
  std::mutex pending_mu_;
  std::vector<Pending> pending_;
};

CudaBackend& backend() {
  static CudaBackend* b = new CudaBackend();  // never destroyed: tensors may outlive statics
  return *b;
}

MemoryStats memory_stats_of(int index) { return device(index, "cuda::memory_stats").allocator->stats(); }

void empty_all_caches() {
  for (int i = 0, n = present_device_count(); i < n; ++i) device(i).allocator->empty_cache();
  backend().pinned()->empty_cache();
}

void* enter_compute_stream(int index) {
  DeviceContext& d = device(index, "cuda::detail::enter_compute_stream");
  d.make_current();
  return d.stream(0);
}

// Registered when libnabla loads this library, with every kernel of
// kernels/accel on this backend's accel runtime (accel_runtime.cpp), with or
// without a device: what is built is what the op table's coverage test
// counts; convolutions then go through cuDNN where it loads (cudnn_conv.cpp).
// Devices are enumerated at first use, cuDNN at the first convolution. (libnabla's own static
// initializers, the op table's included, have run before it loads this.)
[[maybe_unused]] const bool kRegistered = [] {
  register_backend(&backend());
  detail::Runtime runtime;
  runtime.memory_stats = memory_stats_of;
  runtime.empty_cache = empty_all_caches;
  runtime.cudnn_version = cudnn_loaded_version;
  runtime.cudnn_unavailable_reason = [] { return cudnn_load_error(); };
  runtime.enter_compute_stream = enter_compute_stream;
  register_graph_runtime(runtime);  // cuda_graph.cpp
  detail::register_runtime(runtime);
  accel::register_runtime(&accel_runtime());
  accel::register_accel_kernels(DeviceType::CUDA);
  register_cudnn_conv_kernels();
  return true;
}();

}  // namespace
}  // namespace nabla::cuda

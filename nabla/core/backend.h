// The device runtime: one Backend per device type (CPU, OpenCL, CUDA, the
// test device "opaque") gives memory, copies, queues and events. Nothing else
// touches a device's memory: storage holds the backend's opaque handle, and
// Tensor::to / copy_ / cpu() are built on Backend::copy. Kernels are not
// here (ops/kernel_registry.h): a backend registers them per op.
// See DESIGN.md, "Backends", and docs/devices.md.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "nabla/core/allocator.h"
#include "nabla/core/device.h"
#include "nabla/core/ref.h"

namespace nabla {

// A queue (a CUDA stream, an OpenCL command queue) of one device: work
// enqueued on one queue runs in order. id 0 is the device's default queue,
// on which ops run.
struct Queue {
  Device device;
  int id = 0;
};

// A point in a queue's work: the host can wait for it, another queue can be
// ordered after it.
class Event : public RefCounted {
 public:
  virtual void synchronize() = 0;  // blocks until the work before the event is done
  virtual bool query() = 0;        // whether that work is done (never blocks)
};

// A place in memory: a backend's opaque handle (a host pointer on the CPU, a
// cl_mem, a CUDA pointer) and a byte offset into it. Offsets travel beside the
// handle, never added to it: a cl_mem cannot be offset.
struct MemRef {
  void* handle = nullptr;
  std::size_t offset = 0;
  Device device;
};

class Tensor;
// Where a tensor's first element is: its storage's handle and byte offset.
MemRef mem_ref(const Tensor& t);

struct DeviceInfo {
  Device device;
  std::string name;          // e.g. "pthread-AMD EPYC 7B13 (PoCL 3.1)"
  int64_t total_memory = 0;  // bytes
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual DeviceType type() const = 0;
  // How many devices of this type are present (0 when none; then
  // unavailable_reason() says why).
  virtual int device_count() = 0;
  virtual std::string unavailable_reason() { return "no device found"; }
  virtual DeviceInfo device_info(int index) = 0;

  // The caching allocator of one device: in steady state a training step asks
  // the driver for no new memory. Its pointers are this backend's handles.
  virtual Allocator* allocator(int index) = 0;
  // Host memory the device copies from and to asynchronously (page-locked);
  // null when this backend has none (then copies are synchronous).
  virtual Allocator* pinned_allocator() { return nullptr; }

  // Copies `bytes` from src to dst; one side is this backend's device, the
  // other one is the same device or the CPU. Enqueued on `queue` (of this
  // device). With non_blocking the call may return before the copy is done:
  // then `keep_alive` (the host side's storage, or null) is held until it is.
  // Without it the copy is done when the call returns.
  virtual void copy(MemRef dst, MemRef src, std::size_t bytes, Queue queue, bool non_blocking,
                    Ref<RefCounted> keep_alive) = 0;

  // Waits until all work on the device's queues is done.
  virtual void synchronize(int index) = 0;
  // A queue of its own (for copies beside compute); the default queue when the
  // backend runs everything in order anyway.
  virtual Queue new_queue(int index) { return Queue{Device(type(), static_cast<int16_t>(index)), 0}; }
  virtual Ref<Event> record(Queue queue) = 0;
  // Work enqueued on `queue` after this call waits for `event`.
  virtual void wait(Queue queue, Event& event) = 0;
};

// Backends register themselves once, at load time (a static initializer in
// their library); registering a type twice replaces the first.
void register_backend(Backend* backend);
// The backend of a device type, or null when none is built or registered.
Backend* find_backend(DeviceType type);
// The backend of a device that must exist: an Error naming `api`, the device
// and the devices present otherwise.
Backend& backend_for(Device device, const char* api);

// Every device present, CPU first.
std::vector<DeviceInfo> devices();
// "cpu, opencl:0" (for messages).
std::string available_devices_text();
// Waits for all work on the device (no-op on the CPU).
void synchronize(Device device = kCPU);

}  // namespace nabla

// The OpenCL Backend (core/backend.h): devices enumerated at first use, one
// context per platform, in-order queues, events (markers and barriers),
// copies with byte offsets in every direction, pinned host memory.
#include "nabla/kernels/opencl/runtime.h"

#include <memory>
#include <unordered_set>
#include <vector>

#include "nabla/core/backend.h"
#include "nabla/kernels/accel/runtime.h"
#include "nabla/kernels/device/elementwise_source.h"
#include "nabla/kernels/opencl/accel_runtime.h"

namespace nabla::opencl {
namespace {

template <class T>
T device_value(cl_device_id d, cl_device_info what) {
  T v{};
  check(clGetDeviceInfo(d, what, sizeof(T), &v, nullptr), "clGetDeviceInfo");
  return v;
}

std::string device_text(cl_device_id d, cl_device_info what) {
  std::size_t n = 0;
  check(clGetDeviceInfo(d, what, 0, nullptr, &n), "clGetDeviceInfo");
  std::string s(n, '\0');
  check(clGetDeviceInfo(d, what, n, s.data(), nullptr), "clGetDeviceInfo");
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string platform_text(cl_platform_id p, cl_platform_info what) {
  std::size_t n = 0;
  check(clGetPlatformInfo(p, what, 0, nullptr, &n), "clGetPlatformInfo");
  std::string s(n, '\0');
  check(clGetPlatformInfo(p, what, n, s.data(), nullptr), "clGetPlatformInfo");
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

// Every kernel is the accelerators' (kernels/accel), on this backend's runtime.
void register_kernels() {
  accel::register_runtime(&accel_runtime());
  accel::register_accel_kernels(DeviceType::OpenCL);
}

struct Devices {
  std::vector<std::unique_ptr<DeviceContext>> list;
  std::string reason;  // why the list is empty
};

// Every device of every platform, in the ICD loader's order; one context per
// platform. Never destroyed (tensors may outlive static destructors).
Devices& enumerate() {
  static Devices* devices = [] {
    auto* d = new Devices();
    cl_uint num_platforms = 0;
    cl_int err = clGetPlatformIDs(0, nullptr, &num_platforms);
    if (err != CL_SUCCESS || num_platforms == 0) {
      d->reason = std::string("no OpenCL platform found (clGetPlatformIDs: ") +
                  (error_name(err) ? error_name(err) : std::to_string(err)) +
                  "); install an OpenCL driver, e.g. Debian's pocl-opencl-icd";
      register_kernels();
      return d;
    }
    std::vector<cl_platform_id> platforms(num_platforms);
    check(clGetPlatformIDs(num_platforms, platforms.data(), nullptr), "clGetPlatformIDs");
    for (cl_platform_id p : platforms) {
      cl_uint n = 0;
      if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS || n == 0) continue;
      std::vector<cl_device_id> ids(n);
      check(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, ids.data(), nullptr), "clGetDeviceIDs");
      cl_context_properties props[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(p), 0};
      cl_int cerr = CL_SUCCESS;
      cl_context context = clCreateContext(props, n, ids.data(), nullptr, nullptr, &cerr);
      check(cerr, "clCreateContext");
      for (cl_device_id id : ids) {
        auto dev = std::make_unique<DeviceContext>();
        dev->index = static_cast<int>(d->list.size());
        dev->platform = p;
        dev->id = id;
        dev->context = context;
        dev->name = device_text(id, CL_DEVICE_NAME);
        dev->vendor = device_text(id, CL_DEVICE_VENDOR);
        dev->driver_version = device_text(id, CL_DRIVER_VERSION);
        dev->platform_name = platform_text(p, CL_PLATFORM_NAME);
        dev->global_memory = static_cast<int64_t>(device_value<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE));
        dev->max_allocation = static_cast<int64_t>(device_value<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE));
        dev->fp64 = device_value<cl_device_fp_config>(id, CL_DEVICE_DOUBLE_FP_CONFIG) != 0;
        dev->allocator = new CachingAllocator(context, "opencl:" + std::to_string(dev->index) + " (" + dev->name + ")",
                                              dev->global_memory, dev->max_allocation);
        dev->add_queue();  // queue 0: ops
        d->list.push_back(std::move(dev));
      }
    }
    if (d->list.empty()) d->reason = "OpenCL platforms are installed but none has a device";
    // Kernels register here, at the device runtime's first use (before any
    // tensor can be on the device; with or without a device, so that what is
    // built is what the docs list), rather than in static initializers: some
    // OpDefs are initialized dynamically, in an order across files that C++
    // does not fix, and would lose a kernel registered before them.
    register_kernels();
    return d;
  }();
  return *devices;
}

// ---- events ----------------------------------------------------------------

class ClEvent final : public Event {
 public:
  explicit ClEvent(cl_event e) : event_(e) {}
  ~ClEvent() override { clReleaseEvent(event_); }
  void synchronize() override { check(clWaitForEvents(1, &event_), "clWaitForEvents"); }
  bool query() override {
    cl_int status = CL_QUEUED;
    check(clGetEventInfo(event_, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr), "clGetEventInfo");
    check(status < 0 ? status : CL_SUCCESS, "an enqueued command");
    return status == CL_COMPLETE;
  }
  cl_event get() const { return event_; }

 private:
  cl_event event_;
};

// ---- pinned host memory ----------------------------------------------------

// A buffer made with CL_MEM_ALLOC_HOST_PTR (page-locked host memory on GPU
// drivers) and mapped once: its host pointer is what tensors hold.
class PinnedAllocator final : public Allocator {
 public:
  void* allocate(std::size_t nbytes) override {
    DeviceContext& dev = device(0, "Tensor::pin_memory");
    const std::size_t bytes = nbytes ? nbytes : 1;
    cl_int err = CL_SUCCESS;
    cl_mem buffer = clCreateBuffer(dev.context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, &err);
    if (is_out_of_memory(err) || err == CL_INVALID_BUFFER_SIZE)
      throw OutOfMemoryError("opencl: out of pinned host memory: tried to allocate " + std::to_string(nbytes) + " bytes",
                             nbytes);
    check(err, "clCreateBuffer", "pinned host memory (CL_MEM_ALLOC_HOST_PTR)");
    void* host = clEnqueueMapBuffer(dev.queue(0), buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, nullptr,
                                    nullptr, &err);
    if (err != CL_SUCCESS) clReleaseMemObject(buffer);
    check(err, "clEnqueueMapBuffer", "pinned host memory");
    std::lock_guard lock(mu_);
    buffers_.emplace(host, buffer);
    return host;
  }
  void deallocate(void* p, std::size_t) noexcept override {
    cl_mem buffer = nullptr;
    {
      std::lock_guard lock(mu_);
      auto it = buffers_.find(p);
      if (it == buffers_.end()) return;
      buffer = it->second;
      buffers_.erase(it);
    }
    cl_command_queue q = device(0).queue(0);
    clEnqueueUnmapMemObject(q, buffer, p, 0, nullptr, nullptr);
    clReleaseMemObject(buffer);
  }
  bool owns(const void* p) {
    std::lock_guard lock(mu_);
    return buffers_.count(const_cast<void*>(p)) != 0;
  }

 private:
  std::mutex mu_;
  std::unordered_map<void*, cl_mem> buffers_;
};

// ---- the backend -------------------------------------------------------------

class OpenCLBackend final : public Backend {
 public:
  DeviceType type() const override { return DeviceType::OpenCL; }
  int device_count() override { return static_cast<int>(enumerate().list.size()); }
  std::string unavailable_reason() override { return enumerate().reason; }
  DeviceInfo device_info(int index) override {
    DeviceContext& d = device(index);
    return {Device(DeviceType::OpenCL, static_cast<int16_t>(index)), d.name + " (" + d.platform_name + " " + d.driver_version + ")",
            d.global_memory};
  }
  Allocator* allocator(int index) override { return device(index).allocator; }
  Allocator* pinned_allocator() override { return device_count() > 0 ? &pinned_ : nullptr; }

  void copy(MemRef dst, MemRef src, std::size_t bytes, Queue queue, bool non_blocking,
            Ref<RefCounted> keep_alive) override {
    reap();
    if (bytes == 0) return;
    cl_command_queue q = device(queue.device.index, "copy").queue(queue.id);
    cl_event done = nullptr;
    if (src.device.is_cpu()) {
      // Asynchronous only from pinned memory: a pageable buffer may be freed
      // or changed by the caller before the driver has read it.
      const bool async = non_blocking && pinned_.owns(src.handle);
      check(clEnqueueWriteBuffer(q, static_cast<cl_mem>(dst.handle), async ? CL_FALSE : CL_TRUE, dst.offset, bytes,
                                 static_cast<const char*>(src.handle) + src.offset, 0, nullptr, async ? &done : nullptr),
            "clEnqueueWriteBuffer", "copying to the device");
    } else if (dst.device.is_cpu()) {
      const bool async = non_blocking && pinned_.owns(dst.handle);
      check(clEnqueueReadBuffer(q, static_cast<cl_mem>(src.handle), async ? CL_FALSE : CL_TRUE, src.offset, bytes,
                                static_cast<char*>(dst.handle) + dst.offset, 0, nullptr, async ? &done : nullptr),
            "clEnqueueReadBuffer", "copying to the host");
    } else {
      NABLA_CHECK(src.device == dst.device, "opencl: copy between ", src.device, " and ", dst.device,
                  " must go through the host");
      check(clEnqueueCopyBuffer(q, static_cast<cl_mem>(src.handle), static_cast<cl_mem>(dst.handle), src.offset,
                                dst.offset, bytes, 0, nullptr, &done),
            "clEnqueueCopyBuffer");
      if (!non_blocking) {
        cl_int err = clWaitForEvents(1, &done);
        clReleaseEvent(done);
        check(err, "clWaitForEvents", "a device-to-device copy");
        return;
      }
    }
    if (done) {
      clFlush(q);
      std::lock_guard lock(pending_mu_);
      pending_.push_back({done, std::move(keep_alive)});
    }
  }

  void synchronize(int index) override {
    DeviceContext& d = device(index, "synchronize");
    std::vector<cl_command_queue> queues;
    {
      std::lock_guard lock(d.queues_mu);
      queues.assign(d.queues.begin(), d.queues.end());
    }
    for (cl_command_queue q : queues) check(clFinish(q), "clFinish");
    reap();
  }
  Queue new_queue(int index) override {
    return Queue{Device(DeviceType::OpenCL, static_cast<int16_t>(index)), device(index, "new_queue").add_queue()};
  }
  Ref<Event> record(Queue queue) override {
    reap();
    cl_command_queue q = device(queue.device.index, "record").queue(queue.id);
    cl_event e = nullptr;
    check(clEnqueueMarkerWithWaitList(q, 0, nullptr, &e), "clEnqueueMarkerWithWaitList");
    clFlush(q);  // so that query() sees progress without a blocking call
    return make_ref<ClEvent>(e);
  }
  void wait(Queue queue, Event& event) override {
    auto* e = dynamic_cast<ClEvent*>(&event);
    NABLA_CHECK(e, "opencl: wait: the event was not recorded on an OpenCL queue");
    cl_event ev = e->get();
    check(clEnqueueBarrierWithWaitList(device(queue.device.index, "wait").queue(queue.id), 1, &ev, nullptr),
          "clEnqueueBarrierWithWaitList");
  }

 private:
  // Drops the host storages of asynchronous copies that are done (outside
  // the lock: freeing pinned memory enqueues an unmap).
  void reap() {
    std::vector<Ref<RefCounted>> done;
    std::lock_guard lock(pending_mu_);
    std::erase_if(pending_, [&](Pending& p) {
      cl_int status = CL_QUEUED;
      clGetEventInfo(p.event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
      if (status > CL_COMPLETE) return false;  // queued, submitted or running
      clReleaseEvent(p.event);
      done.push_back(std::move(p.keep_alive));
      return true;
    });
  }

  struct Pending {
    cl_event event;
    Ref<RefCounted> keep_alive;  // the host side of a non-blocking copy
  };
  PinnedAllocator pinned_;
  std::mutex pending_mu_;
  std::vector<Pending> pending_;
};

OpenCLBackend& backend() {
  static OpenCLBackend* b = new OpenCLBackend();  // never destroyed: tensors may outlive statics
  return *b;
}
// Registered at load time; devices are enumerated at first use.
[[maybe_unused]] const bool kRegistered = (register_backend(&backend()), true);

}  // namespace

cl_command_queue DeviceContext::queue(int id) {
  std::lock_guard lock(queues_mu);
  NABLA_CHECK(id >= 0 && id < static_cast<int>(queues.size()), "opencl:", index, ": no queue ", id, " (it has ",
              queues.size(), "; make more with new_queue)");
  return queues[static_cast<std::size_t>(id)];
}

int DeviceContext::add_queue() {
  cl_int err = CL_SUCCESS;
  cl_command_queue q = clCreateCommandQueue(context, id, 0, &err);  // in order
  check(err, "clCreateCommandQueue");
  std::lock_guard lock(queues_mu);
  queues.push_back(q);
  return static_cast<int>(queues.size()) - 1;
}

int device_count() { return static_cast<int>(enumerate().list.size()); }
std::string unavailable_reason_text() { return enumerate().reason; }

DeviceContext& device(int index, const char* api) {
  Devices& d = enumerate();
  if (index < 0 || index >= static_cast<int>(d.list.size()))
    fail(api, ": device opencl:", index, " is not available (", d.list.empty() ? d.reason : std::to_string(d.list.size()) + " OpenCL devices",
         "); the devices present are ", available_devices_text());
  return *d.list[static_cast<std::size_t>(index)];
}

// ---- nabla/opencl.h ------------------------------------------------------------

bool is_built() { return true; }
bool is_available() { return device_count() > 0; }
std::string unavailable_reason() { return unavailable_reason_text(); }

MemoryStats memory_stats(int index) { return device(index, "opencl::memory_stats").allocator->stats(); }

void empty_cache() {
  for (auto& d : enumerate().list) d->allocator->empty_cache();
}

const char* c_type(DType t) { return device_c::type_name(t); }

}  // namespace nabla::opencl

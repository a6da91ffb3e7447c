#include "nabla/core/backend.h"

#include <array>
#include <cstring>
#include <mutex>
#include <sstream>

#include "nabla/core/cuda_library.h"
#include "nabla/core/error.h"
#include "nabla/core/tensor.h"

namespace nabla {
namespace {

// Work on the CPU is done when the call that does it returns.
class DoneEvent final : public Event {
 public:
  void synchronize() override {}
  bool query() override { return true; }
};

class CpuBackend final : public Backend {
 public:
  DeviceType type() const override { return DeviceType::CPU; }
  int device_count() override { return 1; }
  DeviceInfo device_info(int) override { return {kCPU, "cpu", physical_memory_bytes()}; }
  Allocator* allocator(int) override { return host_allocator(); }
  void copy(MemRef dst, MemRef src, std::size_t bytes, Queue, bool, Ref<RefCounted>) override {
    if (bytes) std::memmove(static_cast<char*>(dst.handle) + dst.offset, static_cast<char*>(src.handle) + src.offset, bytes);
  }
  void synchronize(int) override {}
  Ref<Event> record(Queue) override { return make_ref<DoneEvent>(); }
  void wait(Queue, Event&) override {}
};

std::array<Backend*, kNumDeviceTypes>& backends() {
  static CpuBackend cpu;
  static std::array<Backend*, kNumDeviceTypes> table = [] {
    std::array<Backend*, kNumDeviceTypes> t{};
    t[static_cast<int>(DeviceType::CPU)] = &cpu;
    return t;
  }();
  return table;
}

std::mutex& registry_mutex() {
  static std::mutex mu;
  return mu;
}

}  // namespace

void register_backend(Backend* backend) {
  std::lock_guard lock(registry_mutex());
  backends()[static_cast<int>(backend->type())] = backend;
}

namespace detail {
Backend* registered_backend(DeviceType type) {
  std::lock_guard lock(registry_mutex());
  return backends()[static_cast<int>(type)];
}
}  // namespace detail

Backend* find_backend(DeviceType type) {
  // The CUDA backend is a library of its own, loaded (once) at first use: its
  // static initializer registers it (core/cuda_library.h).
  if (type == DeviceType::CUDA) cuda::detail::load_library();
  return detail::registered_backend(type);
}

namespace {
// Why a device type has no backend, for errors.
std::string missing_backend_reason(DeviceType type) {
  if (type == DeviceType::CUDA) return cuda::unavailable_reason();
  return std::string("this build of nabla has no ") + DeviceTypeName(type) + " backend";
}
}  // namespace

std::vector<DeviceInfo> devices() {
  std::vector<DeviceInfo> all;
  for (int t = 0; t < kNumDeviceTypes; ++t) {
    Backend* b = find_backend(static_cast<DeviceType>(t));
    if (!b) continue;
    for (int i = 0, n = b->device_count(); i < n; ++i) all.push_back(b->device_info(i));
  }
  return all;
}

std::string available_devices_text() {
  std::ostringstream os;
  bool first = true;
  for (const DeviceInfo& d : devices()) {
    os << (first ? "" : ", ") << d.device;
    first = false;
  }
  return os.str();
}

Backend& backend_for(Device device, const char* api) {
  if (device.is_cpu()) {
    NABLA_CHECK(device.index == 0, api, ": there is one cpu device (cpu:0), got ", device, " (index ", device.index,
                ")");
    return *find_backend(DeviceType::CPU);
  }
  Backend* b = find_backend(device.type);
  if (!b)
    fail(api, ": device ", device, " is not available: ", missing_backend_reason(device.type),
         "; the devices present are ", available_devices_text());
  const int n = b->device_count();
  if (n == 0)
    fail(api, ": device ", device, " is not available: ", b->unavailable_reason(), "; the devices present are ",
         available_devices_text());
  NABLA_CHECK(device.index >= 0 && device.index < n, api, ": device ", device, " does not exist: there ",
              n == 1 ? "is 1 " : "are ", n == 1 ? "" : std::to_string(n) + " ", DeviceTypeName(device.type),
              n == 1 ? " device" : " devices", "; the devices present are ", available_devices_text());
  return *b;
}

MemRef mem_ref(const Tensor& t) {
  const TensorImpl* p = t.impl();
  NABLA_CHECK(p && p->storage, "mem_ref: the tensor has no memory (undefined or a graph value)");
  return {p->storage->handle(), static_cast<std::size_t>(p->offset) * itemsize(p->dtype), p->device};
}

void synchronize(Device device) {
  if (device.is_cpu()) return;
  backend_for(device, "synchronize").synchronize(device.index);
}

Allocator* allocator_for(Device d) {
  if (d.is_cpu()) return host_allocator();
  return backend_for(d, "allocate").allocator(d.index);
}

}  // namespace nabla

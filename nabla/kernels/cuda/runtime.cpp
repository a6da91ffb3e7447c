// Device enumeration: cuInit, then each device's name, memory, compute
// capability, primary context, default stream and allocator. Any failure
// becomes the reason no device is available (never an exception out of a
// query such as cuda::is_available()).
#include "nabla/kernels/cuda/runtime.h"

#include <memory>
#include <vector>

#include "nabla/core/backend.h"
#include "nabla/kernels/cuda/memory.h"

namespace nabla::cuda {
namespace {

struct Devices {
  std::vector<std::unique_ptr<DeviceContext>> list;
  std::string reason;  // why the list is empty
};

std::unique_ptr<DeviceContext> open_device(const Driver& drv, int index) {
  auto d = std::make_unique<DeviceContext>();
  d->index = index;
  check(drv.cuDeviceGet(&d->device, index), "cuDeviceGet");
  char name[256] = {};
  check(drv.cuDeviceGetName(name, sizeof name - 1, d->device), "cuDeviceGetName");
  d->name = name;
  std::size_t bytes = 0;
  check(drv.cuDeviceTotalMem(&bytes, d->device), "cuDeviceTotalMem");
  d->total_memory = static_cast<int64_t>(bytes);
  check(drv.cuDeviceGetAttribute(&d->compute_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d->device),
        "cuDeviceGetAttribute");
  check(drv.cuDeviceGetAttribute(&d->compute_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->device),
        "cuDeviceGetAttribute");
  // The primary context, as the CUDA runtime API, cuBLAS and cuDNN use it:
  // one per device, retained for the life of the process.
  check(drv.cuDevicePrimaryCtxRetain(&d->context, d->device), "cuDevicePrimaryCtxRetain", device_text(*d));
  check(drv.cuDriverGetVersion(&d->driver_version), "cuDriverGetVersion");
  d->allocator = new DeviceAllocator(*d);  // never destroyed, like the device
  d->add_stream();                         // stream 0: ops
  return d;
}

// Never destroyed (tensors may outlive static destructors).
Devices& enumerate() {
  static Devices* devices = [] {
    auto* all = new Devices();
    const DriverLibrary& lib = driver_library();
    if (!lib.error.empty()) {
      all->reason = lib.error;
      return all;
    }
    const Driver& drv = lib.fn;
    if (CUresult r = drv.cuInit(0); r != CUDA_SUCCESS) {
      all->reason = "cuInit failed: " + error_text(r);
      return all;
    }
    int n = 0;
    if (CUresult r = drv.cuDeviceGetCount(&n); r != CUDA_SUCCESS) {
      all->reason = "cuDeviceGetCount failed: " + error_text(r);
      return all;
    }
    if (n == 0) all->reason = "the NVIDIA driver found no CUDA device";
    for (int i = 0; i < n; ++i) {
      try {
        all->list.push_back(open_device(drv, i));
      } catch (const Error& e) {
        // Indices stay those of the driver: the devices after this one are
        // left out too.
        if (all->list.empty()) all->reason = "cuda:" + std::to_string(i) + " could not be opened: " + e.what();
        break;
      }
    }
    return all;
  }();
  return *devices;
}

}  // namespace

void DeviceContext::make_current() const { check(driver().cuCtxSetCurrent(context), "cuCtxSetCurrent"); }

CUstream DeviceContext::stream(int id) {
  std::lock_guard lock(streams_mu);
  NABLA_CHECK(id >= 0 && id < static_cast<int>(streams.size()), "cuda:", index, ": no queue ", id, " (it has ",
              streams.size(), "; make more with new_queue)");
  return streams[static_cast<std::size_t>(id)];
}

int DeviceContext::add_stream() {
  make_current();
  CUstream s = nullptr;
  check(driver().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate", device_text(*this));
  std::lock_guard lock(streams_mu);
  streams.push_back(s);
  return static_cast<int>(streams.size()) - 1;
}

int present_device_count() { return static_cast<int>(enumerate().list.size()); }
std::string unavailable_reason_text() { return enumerate().list.empty() ? enumerate().reason : ""; }

DeviceContext& device(int index, const char* api) {
  Devices& d = enumerate();
  if (index < 0 || index >= static_cast<int>(d.list.size()))
    fail(api, ": device cuda:", index, " is not available (",
         d.list.empty() ? d.reason : std::to_string(d.list.size()) + " CUDA devices",
         "); the devices present are ", available_devices_text());
  return *d.list[static_cast<std::size_t>(index)];
}

std::string device_text(const DeviceContext& d) { return "cuda:" + std::to_string(d.index) + " (" + d.name + ")"; }

}  // namespace nabla::cuda

// Error inputs of to_device (Tensor::to(device), cpu(), copy_ across devices;
// tests/support/error_inputs.h): devices that are not built, not present or
// out of range, and data of a device tensor read as host memory.
#include "support/error_inputs.h"
#include "support/opaque_backend.h"

namespace nabla::testing {
namespace {

NABLA_ERROR_INPUTS({
    {"to_device", "Tensor::to", "a device type with no device here (cuda: see tests/cuda for the reason)",
     [] { zeros({2}).to(Device("cuda:0")); }, {"cuda:0", "is not available", "devices present are cpu"}},
    {"to_device", "Tensor::to", "a device index past the devices present",
     [] { zeros({2}).to(opaque_device(7)); }, {"opaque:7", "does not exist", "2 opaque devices", "opaque:1"}},
    {"to_device", "Tensor::to", "a cpu index other than 0", [] { zeros({2}).to(Device(DeviceType::CPU, 1)); },
     {"one cpu device", "cpu:0"}},
    {"to_device", "Tensor::data_ptr", "host access to device memory",
     [] { zeros({2}).to(opaque_device(0)).data_ptr<float>(); }, {"opaque:0", "not host-addressable"}},
});

}  // namespace
}  // namespace nabla::testing

#include "nabla/core/device.h"

#include "nabla/core/error.h"

namespace nabla {

Device::Device(const std::string& spec) {
  std::string kind = spec;
  int idx = 0;
  if (auto colon = spec.find(':'); colon != std::string::npos) {
    kind = spec.substr(0, colon);
    try {
      idx = std::stoi(spec.substr(colon + 1));
    } catch (...) {
      fail("Device: bad device index in '", spec, "', expected e.g. 'cuda:0'");
    }
  }
  if (kind == "cpu") type = DeviceType::CPU;
  else if (kind == "cuda") type = DeviceType::CUDA;
  else if (kind == "opencl") type = DeviceType::OpenCL;
  else fail("Device: unknown device '", spec, "', expected cpu, cuda[:N] or opencl[:N]");
  index = static_cast<int16_t>(idx);
}

std::string Device::str() const {
  switch (type) {
    case DeviceType::CPU: return "cpu";
    case DeviceType::CUDA: return "cuda:" + std::to_string(index);
    case DeviceType::OpenCL: return "opencl:" + std::to_string(index);
  }
  return "?";
}

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

}  // namespace nabla

#include "nabla/core/device.h"

#include "nabla/core/error.h"

namespace nabla {

Device::Device(const std::string& spec) {
  if (spec == "cpu") return;  // the common case, kept cheap: factories name their device in an attr
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
  else if (kind == "opaque") type = DeviceType::Opaque;
  else fail("Device: unknown device '", spec, "', expected cpu, cuda[:N], opencl[:N] or opaque[:N]");
  NABLA_CHECK(idx >= 0 && idx <= INT16_MAX, "Device: device index in '", spec, "' must be in [0, 32767]");
  NABLA_CHECK(type != DeviceType::CPU || idx == 0, "Device: there is one cpu device, cpu:0; got '", spec, "'");
  index = static_cast<int16_t>(idx);
}

const char* DeviceTypeName(DeviceType t) {
  switch (t) {
    case DeviceType::CPU: return "cpu";
    case DeviceType::CUDA: return "cuda";
    case DeviceType::OpenCL: return "opencl";
    case DeviceType::Opaque: return "opaque";
  }
  return "?";
}

std::string Device::str() const {
  switch (type) {
    case DeviceType::CPU: return "cpu";
    case DeviceType::CUDA: return "cuda:" + std::to_string(index);
    case DeviceType::OpenCL: return "opencl:" + std::to_string(index);
    case DeviceType::Opaque: return "opaque:" + std::to_string(index);
  }
  return "?";
}

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

}  // namespace nabla

// Where a tensor's memory lives. Only the backend of a device touches its memory.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>

namespace nabla {

// Opaque: a test device whose memory is host memory behind handles that
// cannot be dereferenced; its backend (tests/support/opaque_backend.cpp) runs
// the CPU kernels on copies, so the op-table suite on it finds any code above
// the kernels that reads device memory directly.
enum class DeviceType : uint8_t { CPU, CUDA, OpenCL, Opaque };
inline constexpr int kNumDeviceTypes = 4;

// "cpu", "cuda", "opencl", "opaque".
const char* DeviceTypeName(DeviceType t);

struct Device {
  DeviceType type = DeviceType::CPU;
  int16_t index = 0;

  Device() = default;
  Device(DeviceType t, int16_t i = 0) : type(t), index(i) {}
  explicit Device(const std::string& spec);  // "cpu", "cuda:1", "opencl", "opaque:0"
  Device(const char* spec) : Device(std::string(spec)) {}
  bool is_cpu() const { return type == DeviceType::CPU; }
  std::string str() const;
  friend bool operator==(const Device&, const Device&) = default;
};

inline const Device kCPU{DeviceType::CPU, 0};

std::ostream& operator<<(std::ostream& os, const Device& d);

}  // namespace nabla

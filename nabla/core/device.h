// Where a tensor's memory lives. Only the backend of a device touches its memory.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>

namespace nabla {

enum class DeviceType : uint8_t { CPU, CUDA, OpenCL };
inline constexpr int kNumDeviceTypes = 3;

struct Device {
  DeviceType type = DeviceType::CPU;
  int16_t index = 0;

  Device() = default;
  Device(DeviceType t, int16_t i = 0) : type(t), index(i) {}
  explicit Device(const std::string& spec);  // "cpu", "cuda:1", "opencl"
  bool is_cpu() const { return type == DeviceType::CPU; }
  std::string str() const;
  friend bool operator==(const Device&, const Device&) = default;
};

inline const Device kCPU{DeviceType::CPU, 0};

std::ostream& operator<<(std::ostream& os, const Device& d);

}  // namespace nabla

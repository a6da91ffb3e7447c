// Names the instances of a test suite parameterized by device after the
// device's type ("opencl", "cuda"): INSTANTIATE_TEST_SUITE_P(..., device_param_name).
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "nabla/core/device.h"

namespace nabla::testing {

inline std::string device_param_name(const ::testing::TestParamInfo<Device>& p) { return DeviceTypeName(p.param.type); }

}  // namespace nabla::testing

// The op-table suite (tests/support/op_info.h) on every accelerator backend
// (OpenCL, CUDA: their kernels are one set, kernels/accel over device C), for
// the entries whose ops all have kernels there: forward against the
// reference (float64, float32, non-contiguous), float64 results against the
// CPU's to 1e-10, gradients against the CPU's (float64 to 1e-10, float32 to
// the entry's tolerances), and the float64 gradcheck. A backend without a
// device here skips each test with one line saying why. AccelCoverage fails
// when an op of the table has no kernel on a built backend, device or not.
#include <gtest/gtest.h>

#include <tuple>

#include "nabla/cuda.h"
#include "nabla/nabla.h"
#include "support/device_param_name.h"
#include "support/op_info.h"

namespace nabla::testing {
namespace {

// The accelerator backends, by their device's first index.
const Device kAccelerators[] = {Device("opencl:0"), Device("cuda:0")};

// Why `d` cannot run tests here ("" when it can).
std::string unavailable(Device d) {
  if (d.type == DeviceType::OpenCL) return opencl::is_available() ? "" : "no OpenCL device: " + opencl::unavailable_reason();
  return cuda::is_available() ? "" : "no CUDA device: " + cuda::unavailable_reason();
}

bool is_built(DeviceType t) { return t == DeviceType::OpenCL ? opencl::is_built() : cuda::is_built(); }

// A kernel of its own (plain or generated), or a generic one.
bool runs_on(const OpDef& op, DeviceType t) { return has_device_kernel(op, t) || find_kernel(op, t) != nullptr; }

// Ops of an entry without a kernel on `t` ("" when all have one).
std::string missing_kernels(const OpInfo& info, DeviceType t) {
  std::string missing;
  for (const std::string& name : info.covers) {
    const OpDef* op = find_op(name);
    if (op && !runs_on(*op, t) && !op->composite) missing += " " + name;
  }
  return missing;
}

// Runs a test body; an Error saying that an op has no kernel on the device
// (one the entry reaches through a composite or its gradient) skips the test,
// naming that op, and fails it if expectations failed before.
template <class Body>
void unless_a_kernel_is_missing(Device d, Body body) {
  try {
    body();
  } catch (const Error& e) {
    const std::string msg = e.what();
    const std::string on = std::string(" on ") + DeviceTypeName(d.type) + ":";
    if (msg.find("no kernel for") == std::string::npos || msg.find(on) == std::string::npos) throw;
    GTEST_SKIP() << "reaches an op without a " << DeviceTypeName(d.type) << " kernel: " << msg;
  }
}

class OpTableAccel : public ::testing::TestWithParam<std::tuple<Device, std::size_t>> {
 protected:
  Device device() const { return std::get<0>(GetParam()); }
  const OpInfo& info() const { return op_infos()[std::get<1>(GetParam())]; }
  void SetUp() override {
    if (const std::string why = unavailable(device()); !why.empty()) GTEST_SKIP() << why;
    const std::string missing = missing_kernels(info(), device().type);
    if (!missing.empty()) GTEST_SKIP() << "no " << DeviceTypeName(device().type) << " kernel yet for:" << missing;
  }
};

TEST_P(OpTableAccel, Forward) {
  unless_a_kernel_is_missing(device(), [&] {
    const OpInfo d = on_device(info(), device());
    check_forward(d, kFloat64, false);
    if (info().float32) check_forward(d, kFloat32, false);
    if (info().noncontiguous) check_forward(d, kFloat64, true);
  });
}

TEST_P(OpTableAccel, Float64MatchesTheCpuTo1e10) {
  unless_a_kernel_is_missing(device(), [&] {
    const OpInfo d = on_device(info(), device());
    for (const Tensors& sample : info().samples()) {
      Tensors on_cpu = info().run(sample);
      Tensors on_dev = d.run(sample);
      ASSERT_EQ(on_cpu.size(), on_dev.size());
      for (std::size_t k = 0; k < on_cpu.size(); ++k) {
        if (!on_cpu[k].defined()) continue;
        EXPECT_EQ(on_dev[k].dtype(), on_cpu[k].dtype());
        const std::string err = compare(on_dev[k], on_cpu[k], 1e-10, 1e-10);
        EXPECT_TRUE(err.empty()) << info().name << " output " << k << ": " << err;
      }
    }
  });
}

TEST_P(OpTableAccel, Gradcheck) {
  if (!info().differentiable) GTEST_SKIP() << "not differentiable";
  unless_a_kernel_is_missing(device(), [&] {
    const OpInfo d = on_device(info(), device());
    for (const Tensors& sample : info().samples()) {
      const std::string err = gradcheck(d, sample);
      EXPECT_TRUE(err.empty()) << info().name << ": " << err;
    }
  });
}

// The backward on the device against the CPU's: float64 to 1e-10, float32
// to the entry's float32 tolerances.
TEST_P(OpTableAccel, GradientsMatchTheCpu) {
  if (!info().differentiable) GTEST_SKIP() << "not differentiable";
  unless_a_kernel_is_missing(device(), [&] {
    const OpInfo d = on_device(info(), device());
    for (const Tensors& sample : info().samples()) {
      for (DType t : {kFloat64, kFloat32}) {
        if (t == kFloat32 && !info().float32) continue;
        const Tensors in = cast_all(sample, t);
        const Tensors on_cpu = vjp(info(), in), on_dev = vjp(d, in);
        ASSERT_EQ(on_cpu.size(), on_dev.size());
        for (std::size_t k = 0; k < on_cpu.size(); ++k) {
          ASSERT_EQ(on_cpu[k].defined(), on_dev[k].defined()) << info().name << " gradient " << k;
          if (!on_cpu[k].defined()) continue;
          const std::string err = t == kFloat64 ? compare(on_dev[k], on_cpu[k], 1e-10, 1e-10)
                                                : compare(on_dev[k], on_cpu[k], info().atol32, info().rtol32);
          EXPECT_TRUE(err.empty()) << info().name << " " << t << " gradient " << k << ": " << err;
        }
      }
    }
  });
}

std::string param_name(const ::testing::TestParamInfo<std::tuple<Device, std::size_t>>& p) {
  return std::string(DeviceTypeName(std::get<0>(p.param).type)) + "_" + op_infos()[std::get<1>(p.param)].name;
}
INSTANTIATE_TEST_SUITE_P(Ops, OpTableAccel,
                         ::testing::Combine(::testing::ValuesIn(kAccelerators), ::testing::ValuesIn(op_info_indices())),
                         param_name);

// Every op of the table runs on each built accelerator backend: a kernel of
// its own (generated from device C or written by hand: docs/opencl.md lists
// which), a generic kernel (views, the cross-device copy) or a composite of
// such ops. Kernels are registered whether or not a device is present (the
// CUDA backend's when libnabla_cuda loads, the OpenCL backend's at its first
// use), so this runs on a machine without a GPU too. A new op without a
// kernel fails here.
class AccelCoverage : public ::testing::TestWithParam<Device> {};

TEST_P(AccelCoverage, EveryOpOfTheTableHasAKernel) {
  const DeviceType t = GetParam().type;
  if (!is_built(t)) GTEST_SKIP() << "nabla was built without " << DeviceTypeName(t);
  (void)unavailable(GetParam());  // loads the backend: its kernels register then
  int with = 0, composite = 0;
  std::string missing;
  for (const OpDef* op : op_table()) {
    if (runs_on(*op, t)) {
      ++with;
    } else if (op->composite) {
      ++composite;
    } else {
      missing += " " + std::string(op->name);
    }
  }
  const int without = static_cast<int>(op_table().size()) - with - composite;
  std::printf("op table: %zu ops; with a %s kernel: %d; composites: %d; without a kernel: %d:%s\n", op_table().size(),
              DeviceTypeName(t), with, composite, without, missing.c_str());
  EXPECT_EQ(without, 0) << "ops without a " << DeviceTypeName(t) << " kernel:" << missing;
}

INSTANTIATE_TEST_SUITE_P(Backends, AccelCoverage, ::testing::ValuesIn(kAccelerators), device_param_name);

}  // namespace
}  // namespace nabla::testing

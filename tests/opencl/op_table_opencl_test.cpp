// The op-table suite (tests/support/op_info.h) on the OpenCL device, for the
// entries whose ops all have OpenCL kernels: forward against the reference
// (float64, float32, non-contiguous), float64 results against the CPU's to
// 1e-10, gradients against the CPU's (float64 to 1e-10, float32 to the
// entry's tolerances), and the float64 gradcheck. OpenCLCoverage fails when an
// op of the table has no OpenCL kernel.
#include <gtest/gtest.h>

#include "opencl/opencl_test_util.h"
#include "support/op_info.h"

namespace nabla::testing {
namespace {

const Device kCL("opencl:0");

// A kernel of its own (plain or generated), or a generic one.
bool runs_on_opencl(const OpDef& op) {
  return has_device_kernel(op, DeviceType::OpenCL) || find_kernel(op, DeviceType::OpenCL) != nullptr;
}

// Ops of an entry without an OpenCL kernel ("" when all have one).
std::string missing_kernels(const OpInfo& info) {
  std::string missing;
  for (const std::string& name : info.covers) {
    const OpDef* op = find_op(name);
    if (op && !runs_on_opencl(*op) && !op->composite) missing += " " + name;
  }
  return missing;
}

// Runs a test body; an Error saying that an op has no kernel on the device
// (one the entry reaches through a composite or its gradient) skips the test,
// naming that op, and fails it if expectations failed before.
template <class Body>
void unless_a_kernel_is_missing(Body body) {
  try {
    body();
  } catch (const Error& e) {
    const std::string msg = e.what();
    if (msg.find("no kernel for") == std::string::npos || msg.find(" on opencl:") == std::string::npos) throw;
    GTEST_SKIP() << "reaches an op without an OpenCL kernel: " << msg;
  }
}

class OpTableOpenCL : public ::testing::TestWithParam<std::size_t> {
 protected:
  const OpInfo& info() const { return op_infos()[GetParam()]; }
  void SetUp() override {
    NABLA_SKIP_WITHOUT_OPENCL();
    const std::string missing = missing_kernels(info());
    if (!missing.empty()) GTEST_SKIP() << "no OpenCL kernel yet for:" << missing;
  }
};

TEST_P(OpTableOpenCL, Forward) {
  unless_a_kernel_is_missing([&] {
    const OpInfo d = on_device(info(), kCL);
    check_forward(d, kFloat64, false);
    if (info().float32) check_forward(d, kFloat32, false);
    if (info().noncontiguous) check_forward(d, kFloat64, true);
  });
}

TEST_P(OpTableOpenCL, Float64MatchesTheCpuTo1e10) {
  unless_a_kernel_is_missing([&] {
    const OpInfo d = on_device(info(), kCL);
    for (const Tensors& sample : info().samples()) {
      Tensors on_cpu = info().run(sample);
      Tensors on_cl = d.run(sample);
      ASSERT_EQ(on_cpu.size(), on_cl.size());
      for (std::size_t k = 0; k < on_cpu.size(); ++k) {
        if (!on_cpu[k].defined()) continue;
        EXPECT_EQ(on_cl[k].dtype(), on_cpu[k].dtype());
        const std::string err = compare(on_cl[k], on_cpu[k], 1e-10, 1e-10);
        EXPECT_TRUE(err.empty()) << info().name << " output " << k << ": " << err;
      }
    }
  });
}

TEST_P(OpTableOpenCL, Gradcheck) {
  if (!info().differentiable) GTEST_SKIP() << "not differentiable";
  unless_a_kernel_is_missing([&] {
    const OpInfo d = on_device(info(), kCL);
    for (const Tensors& sample : info().samples()) {
      const std::string err = gradcheck(d, sample);
      EXPECT_TRUE(err.empty()) << info().name << ": " << err;
    }
  });
}

// The backward on the device against the CPU's: float64 to 1e-10, float32
// to the entry's float32 tolerances.
TEST_P(OpTableOpenCL, GradientsMatchTheCpu) {
  if (!info().differentiable) GTEST_SKIP() << "not differentiable";
  unless_a_kernel_is_missing([&] {
    const OpInfo d = on_device(info(), kCL);
    for (const Tensors& sample : info().samples()) {
      for (DType t : {kFloat64, kFloat32}) {
        if (t == kFloat32 && !info().float32) continue;
        const Tensors in = cast_all(sample, t);
        const Tensors on_cpu = vjp(info(), in), on_cl = vjp(d, in);
        ASSERT_EQ(on_cpu.size(), on_cl.size());
        for (std::size_t k = 0; k < on_cpu.size(); ++k) {
          ASSERT_EQ(on_cpu[k].defined(), on_cl[k].defined()) << info().name << " gradient " << k;
          if (!on_cpu[k].defined()) continue;
          const std::string err = t == kFloat64 ? compare(on_cl[k], on_cpu[k], 1e-10, 1e-10)
                                                : compare(on_cl[k], on_cpu[k], info().atol32, info().rtol32);
          EXPECT_TRUE(err.empty()) << info().name << " " << t << " gradient " << k << ": " << err;
        }
      }
    }
  });
}

std::string param_name(const ::testing::TestParamInfo<std::size_t>& p) { return op_infos()[p.param].name; }
std::vector<std::size_t> all_indices() {
  std::vector<std::size_t> r;
  for (std::size_t i = 0; i < op_infos().size(); ++i) r.push_back(i);
  return r;
}
INSTANTIATE_TEST_SUITE_P(Ops, OpTableOpenCL, ::testing::ValuesIn(all_indices()), param_name);

// Every op of the table runs on OpenCL: a kernel of its own (generated from
// device C or written by hand: docs/opencl.md lists which), a generic kernel
// (views, the cross-device copy) or a composite of such ops. A new op without
// one fails here.
TEST(OpenCLCoverage, EveryOpOfTheTableHasAnOpenCLKernel) {
  NABLA_SKIP_WITHOUT_OPENCL();
  int with = 0, composite = 0;
  std::string missing;
  for (const OpDef* op : op_table()) {
    const std::string name(op->name);
    if (runs_on_opencl(*op)) {
      ++with;
    } else if (op->composite) {
      ++composite;
    } else {
      missing += " " + name;
    }
  }
  const int without = static_cast<int>(op_table().size()) - with - composite;
  std::printf("op table: %zu ops; with an OpenCL kernel: %d; composites: %d; without a kernel: %d:%s\n",
              op_table().size(), with, composite, without, missing.c_str());
  EXPECT_EQ(without, 0) << "ops without an OpenCL kernel:" << missing;
}

}  // namespace
}  // namespace nabla::testing

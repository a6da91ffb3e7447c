// The seed programs with --device opencl (issue 15, acceptance 2): each gives
// the losses it gives on the CPU (float32 tolerance), and the graph program's
// training step copies to the host only the fetched loss. Skips without an
// OpenCL device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "nabla/opencl.h"
#include "support/run_program.h"

namespace {

// Every number after "key=" in the output, in order.
std::vector<double> values_of(const std::string& out, const std::string& key) {
  std::vector<double> v;
  for (std::size_t pos = out.find(key + "="); pos != std::string::npos; pos = out.find(key + "=", pos + 1))
    v.push_back(std::atof(out.c_str() + pos + key.size() + 1));
  return v;
}

struct ExampleRun {
  const char* program;
  const char* args;
};

class ExamplesOnOpenCL : public ::testing::TestWithParam<ExampleRun> {};

TEST_P(ExamplesOnOpenCL, GiveTheCpuLosses) {
  if (!nabla::opencl::is_available()) GTEST_SKIP() << "no OpenCL device: " << nabla::opencl::unavailable_reason();
  const std::string cmd = std::string(NABLA_EXAMPLES_DIR) + "/" + GetParam().program + " " + GetParam().args;
  const nabla::testing::ProgramRun cpu = nabla::testing::run_program(cmd + " 2>&1");
  const nabla::testing::ProgramRun cl = nabla::testing::run_program(cmd + " --device opencl 2>&1");
  ASSERT_EQ(cpu.code, 0) << cpu.out;
  ASSERT_EQ(cl.code, 0) << cl.out;
  for (const char* key : {"first_loss", "final_loss"}) {
    const std::vector<double> a = values_of(cpu.out, key), b = values_of(cl.out, key);
    ASSERT_FALSE(a.empty()) << cpu.out;
    ASSERT_EQ(a.size(), b.size()) << cl.out;
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(b[i], a[i], 1e-4 * std::abs(a[i])) << key << "\n" << cl.out;
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, ExamplesOnOpenCL,
                         ::testing::Values(ExampleRun{"seed_autograd", "100"}, ExampleRun{"seed_nn_adam", "100"},
                                           ExampleRun{"seed_nn_module", "3"}, ExampleRun{"seed_tf_variables", "10"},
                                           ExampleRun{"seed_compile", "30"}),
                         [](const ::testing::TestParamInfo<ExampleRun>& i) { return std::string(i.param.program); });

TEST(ExamplesOnOpenCLGraph, AStepCopiesOnlyTheLossToTheHost) {
  if (!nabla::opencl::is_available()) GTEST_SKIP() << "no OpenCL device: " << nabla::opencl::unavailable_reason();
  const nabla::testing::ProgramRun r = nabla::testing::run_program(
      std::string(NABLA_EXAMPLES_DIR) + "/seed_tf_variables 5 --device opencl 2>&1");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("host_bound_bytes_per_step=4 (the loss: 4 bytes)"), std::string::npos) << r.out;
}

}  // namespace

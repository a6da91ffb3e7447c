// Issue 15, item 3: `nabla train --device opencl --limit 2000 --epochs 1`
// trains the default Fashion-MNIST CNN on the OpenCL device (PoCL in CI) to
// a test accuracy within 1 point of the same run on the CPU. Both runs start
// from the same seed, so they draw the same initial weights, the same
// shuffles and the same dropout masks; only float32 rounding differs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "opencl/opencl_test_util.h"
#include "support/run_program.h"

namespace nabla::testing {
namespace {

namespace fs = std::filesystem;

const char* kData = "/usr/share/datasets/fashion-mnist";  // Debian's dataset-fashion-mnist

// The "final test accuracy: 79.90%" line's number, or -1.
double final_accuracy(const std::string& out) {
  const std::string tag = "final test accuracy: ";
  const std::size_t at = out.find(tag);
  return at == std::string::npos ? -1.0 : std::atof(out.c_str() + at + tag.size());
}

ProgramRun train_on(const std::string& device, const fs::path& out_dir) {
  return run_program(std::string(NABLA_TOOLS_DIR) + "/nabla train --device " + device +
                     " --limit 2000 --epochs 1 --data " + kData + " --out " + out_dir.string() + " 2>&1");
}

TEST(NablaTrainOpenCL, TheDefaultCnnReachesTheCpuAccuracyWithinOnePoint) {
  NABLA_SKIP_WITHOUT_OPENCL();
  if (!fs::exists(fs::path(kData) / "train-images-idx3-ubyte.gz") &&
      !fs::exists(fs::path(kData) / "train-images-idx3-ubyte"))
    GTEST_SKIP() << "Fashion-MNIST is not installed (apt-get install dataset-fashion-mnist)";
  const fs::path dir = fs::temp_directory_path() / ("nabla_train_opencl_" + std::to_string(::getpid()));
  fs::remove_all(dir);

  const ProgramRun cpu = train_on("cpu", dir / "cpu");
  ASSERT_EQ(cpu.code, 0) << cpu.out;
  const ProgramRun cl = train_on("opencl:0", dir / "opencl");
  ASSERT_EQ(cl.code, 0) << cl.out;
  EXPECT_NE(cl.out.find("device: opencl:0"), std::string::npos) << cl.out;
  EXPECT_TRUE(fs::exists(dir / "opencl" / "checkpoint.safetensors"));

  const double on_cpu = final_accuracy(cpu.out), on_cl = final_accuracy(cl.out);
  std::printf("nabla train --limit 2000 --epochs 1: test accuracy on cpu %.2f%%, on opencl:0 %.2f%%\n", on_cpu, on_cl);
  ASSERT_GT(on_cpu, 50.0) << cpu.out;  // it learned at all
  EXPECT_NEAR(on_cl, on_cpu, 1.0) << cl.out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nabla::testing

// The two renderings of device C (kernels/device/device_c.h) define the same
// macros: a body written against one prelude compiles against the other.
// The OpenCL prelude is read where the build has the OpenCL backend.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "nabla/kernels/cuda/source.h"
#ifdef NABLA_TEST_OPENCL_PRELUDE
#include "nabla/kernels/opencl/launch.h"
#endif

namespace nabla::testing {
namespace {

// The NB_ names `source` #defines, but for a prelude's private helpers
// (NB_CUDA_*).
std::set<std::string> defined_macros(const std::string& source) {
  std::set<std::string> names;
  const std::regex define(R"(#define\s+(NB_\w+))");
  for (std::sregex_iterator it(source.begin(), source.end(), define), end; it != end; ++it) {
    const std::string name = (*it)[1];
    if (!name.starts_with("NB_CUDA_")) names.insert(name);
  }
  return names;
}

TEST(DeviceCPrelude, CudaDefinesEveryMacroOfTheDialect) {
  const std::set<std::string> cuda = defined_macros(cuda::cuda_prelude());
  for (const char* name : {"NB_KERNEL", "NB_GLOBAL", "NB_LOCAL", "NB_INDEX", "NB_LOCAL_ID", "NB_GROUP_ID",
                           "NB_LOCAL_SIZE", "NB_BARRIER", "NB_FN", "NB_NO_CONTRACT", "NB_INF", "NB_NAN", "NB_EXP",
                           "NB_LOG", "NB_SQRT", "NB_POW", "NB_FMA", "NB_ISNAN", "NB_ISINF", "NB_ISFINITE"})
    EXPECT_TRUE(cuda.contains(name)) << name;
}

#ifdef NABLA_TEST_OPENCL_PRELUDE
TEST(DeviceCPrelude, OpenCLAndCudaDefineTheSameMacros) {
  const std::set<std::string> cuda = defined_macros(cuda::cuda_prelude());
  const std::set<std::string> opencl = defined_macros(opencl::device_c_source(accel::Program{}));
  EXPECT_GE(opencl.size(), 30u);
  for (const std::string& name : opencl) EXPECT_TRUE(cuda.contains(name)) << name << " is missing from the CUDA prelude";
  for (const std::string& name : cuda) EXPECT_TRUE(opencl.contains(name)) << name << " is missing from the OpenCL prelude";
}
#endif

}  // namespace
}  // namespace nabla::testing

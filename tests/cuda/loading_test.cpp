// Loading the CUDA backend (core/cuda_library.cpp, kernels/cuda/driver.cpp)
// and what a machine without a usable GPU sees: one clear reason, the same in
// cuda::unavailable_reason() and in the error for Device("cuda"), and a CPU
// library that works as before. ctest also runs CudaLoading.* without
// libnabla_cuda.so (cuda_library_missing) and CudaDriver.* with the toolkit's
// stub driver (cuda_driver_stub).
#include <dlfcn.h>

#include <cstdlib>

#include "cuda/cuda_test_util.h"
#include "support/error_message.h"

namespace nabla::testing {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

TEST(CudaLoading, IsBuiltSaysWhetherTheBackendWasBuilt) { EXPECT_EQ(cuda::is_built(), bool(NABLA_TEST_CUDA_BUILT)); }

// The reason names the first thing missing, in one sentence.
TEST(CudaLoading, UnavailableReasonNamesWhatIsMissing) {
  if (cuda::is_available()) GTEST_SKIP() << "a CUDA device is present: " << available_devices_text();
  const std::string reason = cuda::unavailable_reason();
  std::printf("cuda::unavailable_reason(): %s\n", reason.c_str());
  ASSERT_FALSE(reason.empty());
  EXPECT_EQ(reason.find('\n'), std::string::npos) << reason;
  if (!cuda::is_built()) {
    EXPECT_EQ(reason, "nabla was built without CUDA (NABLA_CUDA=OFF or no toolkit found)");
  } else if (const std::string lib = env("NABLA_CUDA_LIBRARY"); !lib.empty()) {
    EXPECT_TRUE(reason.starts_with("libnabla_cuda.so could not be loaded: ")) << reason;
    EXPECT_NE(reason.find(lib), std::string::npos) << reason;  // dlerror names the file
  } else if (!env("NABLA_CUDA_DRIVER_LIBRARY").empty()) {
    EXPECT_TRUE(reason.starts_with("cuInit failed: ")) << reason;
  } else if (void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL); !driver) {
    EXPECT_TRUE(reason.starts_with("no NVIDIA driver: libcuda.so.1 not found (")) << reason;
  } else {
    // A driver without a usable device.
    EXPECT_TRUE(reason.starts_with("cuInit failed: ") || reason.starts_with("the NVIDIA driver found no CUDA device") ||
                reason.starts_with("cuda:0 could not be opened: "))
        << reason;
  }
}

// Any use of an absent CUDA device is an error naming the API, the device,
// the reason and the devices present.
TEST(CudaLoading, DeviceCudaIsAnErrorThatSaysWhy) {
  if (cuda::is_available()) GTEST_SKIP() << "a CUDA device is present: " << available_devices_text();
  const std::string reason = cuda::unavailable_reason();
  const std::string present = "the devices present are " + available_devices_text();
  const std::string to = error_of([] { (void)ones({2}).to(Device("cuda")); });
  std::printf("ones({2}).to(Device(\"cuda\")): %s\n", to.c_str());
  expect_error(to, {"Tensor::to", "cuda:0", reason.c_str(), present.c_str()});
  expect_error(error_of([] { (void)zeros({2}, device(Device("cuda:0"))); }), {"cuda:0", reason.c_str(), present.c_str()});
  expect_error(error_of([] { (void)ones({2}).to(Device("cuda:1")); }), {"cuda:1", reason.c_str()});
  expect_error(error_of([] { synchronize(Device("cuda")); }), {"synchronize", "cuda:0", reason.c_str()});
}

TEST(CudaLoading, QueriesAnswerWithoutADevice) {
  if (cuda::is_available()) GTEST_SKIP() << "a CUDA device is present: " << available_devices_text();
  EXPECT_EQ(cuda::device_count(), 0);
  const cuda::MemoryStats s = cuda::memory_stats();
  EXPECT_EQ(s.driver_allocations, 0);
  EXPECT_EQ(s.bytes_reserved, 0);
  EXPECT_EQ(s.peak_bytes_reserved, 0);
  EXPECT_NO_THROW(cuda::empty_cache());
  EXPECT_NO_THROW(cuda::synchronize());
  for (const DeviceInfo& d : devices()) EXPECT_NE(d.device.type, DeviceType::CUDA) << d.device;
  // The backend is registered exactly when its library could be loaded.
  Backend* b = find_backend(DeviceType::CUDA);
  const bool library_loaded = cuda::is_built() && !cuda::unavailable_reason().starts_with("libnabla_cuda.so");
  EXPECT_EQ(b != nullptr, library_loaded);
  if (b) {
    EXPECT_EQ(b->device_count(), 0);
    EXPECT_EQ(b->unavailable_reason(), cuda::unavailable_reason());
    EXPECT_EQ(b->pinned_allocator(), nullptr);
  }
}

// The CPU library does not depend on the CUDA one (ctest runs this also
// without libnabla_cuda.so).
TEST(CudaLoading, CpuWorksWhateverCudaSays) {
  (void)cuda::is_available();
  Tensor w = ones({3}, requires_grad());
  (w * w * 2.0).sum().backward();
  EXPECT_TRUE(equal(w.grad(), full({3}, 4.0f)));
  EXPECT_EQ(devices().front().device, kCPU);
}

// With $NABLA_CUDA_DRIVER_LIBRARY set to the toolkit's stub libcuda.so
// (ctest: cuda_driver_stub), every entry point nabla looks up is found (the
// stub exports the real driver's symbols) and cuInit reports the stub.
TEST(CudaDriver, EveryEntryPointIsInTheDriverAndTheStubIsReported) {
  const std::string stub = env("NABLA_CUDA_DRIVER_LIBRARY");
  if (stub.empty()) GTEST_SKIP() << "run by ctest as cuda_driver_stub (NABLA_CUDA_DRIVER_LIBRARY=<toolkit>/lib64/stubs/libcuda.so)";
  if (!cuda::is_built()) GTEST_SKIP() << cuda::unavailable_reason();
  const std::string reason = cuda::unavailable_reason();
  std::printf("with %s: %s\n", stub.c_str(), reason.c_str());
  EXPECT_TRUE(reason.starts_with("cuInit failed: CUDA_ERROR_STUB_LIBRARY")) << reason;
  expect_error(error_of([] { (void)ones({2}).to(Device("cuda")); }), {"cuda:0", "CUDA_ERROR_STUB_LIBRARY"});
}

}  // namespace
}  // namespace nabla::testing

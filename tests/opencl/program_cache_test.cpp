// The OpenCL program cache (kernels/opencl/program_cache.h): a kernel is
// compiled once, a cleared in-memory cache (as in a new process) loads it
// from disk without compiling, and a damaged cache file is rebuilt.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "opencl/opencl_test_util.h"

namespace nabla::testing {
namespace {

namespace fs = std::filesystem;

// Points the disk cache at a fresh directory for one test.
class CacheDir {
 public:
  CacheDir() : dir_(fs::temp_directory_path() / ("nabla_cl_cache_" + std::to_string(::getpid()))) {
    fs::remove_all(dir_);
    const char* old = std::getenv("NABLA_OPENCL_CACHE_DIR");
    had_ = old != nullptr;
    if (had_) old_ = old;
    ::setenv("NABLA_OPENCL_CACHE_DIR", dir_.c_str(), 1);
  }
  ~CacheDir() {
    if (had_) ::setenv("NABLA_OPENCL_CACHE_DIR", old_.c_str(), 1);
    else ::unsetenv("NABLA_OPENCL_CACHE_DIR");
    fs::remove_all(dir_);
  }
  const fs::path& path() const { return dir_; }

 private:
  fs::path dir_;
  bool had_ = false;
  std::string old_;
};

// An op signature no other test uses: int64 remainder on rank-3 strided inputs.
Tensor run_once() {
  Tensor a = (arange(0, 60) - 30).reshape({3, 4, 5}).to(Device("opencl:0"));
  Tensor b = (remainder(arange(0, 60), 7) + 1).reshape({5, 4, 3}).permute({2, 1, 0}).to(Device("opencl:0"));
  return remainder(a.permute({0, 2, 1}), b.permute({0, 2, 1})).cpu();
}

TEST(OpenCLProgramCache, SecondUseLoadsFromDiskWithoutCompiling) {
  NABLA_SKIP_WITHOUT_OPENCL();
  CacheDir dir;
  opencl::clear_program_memory_cache();
  const auto s0 = opencl::program_cache_stats();
  Tensor first = run_once();
  const auto s1 = opencl::program_cache_stats();
  EXPECT_EQ(s1.compiled, s0.compiled + 1);
  EXPECT_FALSE(fs::is_empty(dir.path()));

  run_once();  // in memory
  const auto s2 = opencl::program_cache_stats();
  EXPECT_EQ(s2.compiled, s1.compiled);
  EXPECT_GT(s2.memory_hits, s1.memory_hits);

  opencl::clear_program_memory_cache();  // what a new process starts with
  Tensor again = run_once();
  const auto s3 = opencl::program_cache_stats();
  EXPECT_EQ(s3.compiled, s2.compiled);
  EXPECT_EQ(s3.loaded_from_disk, s2.loaded_from_disk + 1);
  EXPECT_TRUE(equal(first, again));
  std::printf("compile: %.1f ms per program; load from disk: %.1f ms per program\n",
              1e3 * (s1.compile_seconds - s0.compile_seconds),
              1e3 * (s3.load_seconds - s2.load_seconds));
}

TEST(OpenCLProgramCache, DamagedCacheFilesAreRebuiltNotTrusted) {
  NABLA_SKIP_WITHOUT_OPENCL();
  CacheDir dir;
  opencl::clear_program_memory_cache();
  Tensor expected = run_once();
  for (int damage = 0; damage < 3; ++damage) {
    for (const auto& f : fs::directory_iterator(dir.path())) {
      if (damage == 0) fs::resize_file(f.path(), fs::file_size(f.path()) / 2);  // truncated
      if (damage == 1) std::ofstream(f.path(), std::ios::binary) << "not a program";
      if (damage == 2) {  // one flipped byte in the binary: the checksum catches it
        std::fstream io(f.path(), std::ios::binary | std::ios::in | std::ios::out);
        io.seekp(static_cast<std::streamoff>(fs::file_size(f.path()) - 20));
        io.put('\x5a');
      }
    }
    opencl::clear_program_memory_cache();
    const auto before = opencl::program_cache_stats();
    EXPECT_TRUE(equal(run_once(), expected)) << "damage " << damage;
    const auto after = opencl::program_cache_stats();
    EXPECT_EQ(after.compiled, before.compiled + 1) << "damage " << damage;
    EXPECT_EQ(after.loaded_from_disk, before.loaded_from_disk) << "damage " << damage;
  }
}

// One step of elementwise work, timed from a cold in-memory cache: run by
// ASecondProcessLoadsWithoutCompiling in child processes, which ask for the
// stats in the file named by NABLA_TEST_CL_STATS.
TEST(OpenCLProgramCache, ColdStep) {
  NABLA_SKIP_WITHOUT_OPENCL();
  const Device cl("opencl:0");
  const auto t0 = std::chrono::steady_clock::now();
  Tensor x = randn({64, 32}).to(cl), w = randn({64, 32}).to(cl);
  Tensor h = sigmoid(relu(x * w + 0.5) - tanh(x));
  Tensor loss = (h * h).sum().cpu();
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(std::isfinite(loss.item<float>()));
  if (const char* out = std::getenv("NABLA_TEST_CL_STATS")) {
    const auto s = opencl::program_cache_stats();
    std::ofstream(out) << s.compiled << ' ' << s.loaded_from_disk << ' ' << ms << '\n';
  }
}

TEST(OpenCLProgramCache, ASecondProcessLoadsWithoutCompiling) {
  NABLA_SKIP_WITHOUT_OPENCL();
  CacheDir dir;
  const std::string stats = (dir.path().parent_path() / ("nabla_cl_stats_" + std::to_string(::getpid()))).string();
  ::setenv("NABLA_TEST_CL_STATS", stats.c_str(), 1);
  int64_t compiled[2], loaded[2];
  double ms[2];
  for (int run = 0; run < 2; ++run) {
    const std::string cmd = "/proc/" + std::to_string(::getpid()) +
                            "/exe --gtest_filter=OpenCLProgramCache.ColdStep > /dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::ifstream in(stats);
    ASSERT_TRUE(in >> compiled[run] >> loaded[run] >> ms[run]);
  }
  ::unsetenv("NABLA_TEST_CL_STATS");
  fs::remove(stats);
  EXPECT_GT(compiled[0], 0);
  EXPECT_EQ(compiled[1], 0) << "the second process compiled programs the first one cached";
  EXPECT_EQ(loaded[1], compiled[0] + loaded[0]);
  std::printf("first step of a process: %.0f ms compiling %lld programs; %.0f ms loading them from disk\n", ms[0],
              static_cast<long long>(compiled[0]), ms[1]);
}

TEST(OpenCLProgramCache, CacheDirectoryFollowsTheEnvironment) {
  if (!opencl::is_built()) GTEST_SKIP() << opencl::unavailable_reason();
  CacheDir dir;
  EXPECT_EQ(opencl::program_cache_dir(), dir.path().string());
}

}  // namespace
}  // namespace nabla::testing

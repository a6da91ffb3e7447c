// NVRTC compilation (kernels/cuda/nvrtc.h) and the CUDA program cache
// (kernels/cuda/program_cache.h), without a GPU: errors carry NVRTC's log,
// images are PTX or cubin as asked, and the disk cache survives a new cache
// object (a new process) and rejects damaged files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "nabla/core/error.h"
#include "nabla/kernels/cuda/nvrtc.h"
#include "nabla/kernels/cuda/program_cache.h"
#include "nabla/kernels/cuda/source.h"
#include "nabla/kernels/device/softmax.h"

namespace nabla::testing {
namespace {

namespace fs = std::filesystem;
using cuda::cuda_device_c_source;

std::string softmax_source(DType t) { return cuda_device_c_source({{"T", t}}, device_c::softmax_source()); }

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A fresh directory for one test, removed after it.
class TempDir {
 public:
  TempDir() : dir_(fs::temp_directory_path() / ("nabla_cuda_cache_" + std::to_string(::getpid()))) {
    fs::remove_all(dir_);
  }
  ~TempDir() { fs::remove_all(dir_); }
  const fs::path& path() const { return dir_; }

 private:
  fs::path dir_;
};

// Sets an environment variable for one test (unset: null), restoring it after.
class EnvVar {
 public:
  EnvVar(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~EnvVar() {
    if (had_) ::setenv(name_, old_.c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(Nvrtc, CompilesDeviceCToPtxWithTheKernelUnmangled) {
  const std::string ptx = cuda::nvrtc_compile(softmax_source(kFloat32), "softmax", "compute_90");
  EXPECT_NE(ptx.find(".target sm_90"), std::string::npos);
  EXPECT_NE(ptx.find(".entry nb_softmax("), std::string::npos) << "extern \"C\": the runtime finds kernels by name";
  EXPECT_EQ(ptx.find('\0'), std::string::npos);
  // float data stays float: the float overloads, not exp(double).
  EXPECT_EQ(ptx.find(".f64"), std::string::npos) << "a float32 softmax should do no double arithmetic";
  EXPECT_NE(cuda::nvrtc_compile(softmax_source(kFloat64), "softmax", "compute_90").find(".f64"), std::string::npos);
}

TEST(Nvrtc, CompilesToACubinForARealArchitecture) {
  const std::string cubin = cuda::nvrtc_compile(softmax_source(kFloat32), "softmax", "sm_90");
  ASSERT_GE(cubin.size(), 4u);
  EXPECT_EQ(cubin.substr(0, 4), std::string("\x7f" "ELF", 4));
}

TEST(Nvrtc, NoFusedMultiplyAddUnlessTheSourceAsksForOne) {
  const std::string body = R"(NB_KERNEL k(NB_GLOBAL float* y, NB_GLOBAL const float* a, float b, float c) {
  const long i = NB_INDEX;
  y[i] = a[i] * b + c;
  y[i + 1] = NB_FMA(a[i], b, c);
})";
  const std::string ptx = cuda::nvrtc_compile(cuda_device_c_source({}, body), "fma_check", "compute_90");
  EXPECT_NE(ptx.find("mul.rn.f32"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("fma.rn.f32"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("add.rn.f32"), std::string::npos) << ptx;
}

// No kernel body uses work-group memory yet; the macros must compile anyway.
TEST(Nvrtc, WorkGroupMemoryAndBarriersCompile) {
  const std::string body = R"(NB_KERNEL nb_group_sum(NB_GLOBAL T* out, NB_GLOBAL const T* x, long n) {
  NB_LOCAL T part[256];
  const long i = NB_INDEX, me = NB_LOCAL_ID;
  part[me] = i < n ? x[i] : (T)0;
  NB_BARRIER;
  for (long w = NB_LOCAL_SIZE / 2; w > 0; w /= 2) {
    if (me < w) part[me] += part[me + w];
    NB_BARRIER;
  }
  if (me == 0) out[NB_GROUP_ID] = part[0];
})";
  std::string log;
  const std::string ptx =
      cuda::nvrtc_compile(cuda_device_c_source({{"T", kFloat64}}, body), "group_sum", "compute_90", &log);
  EXPECT_EQ(log, "");
  EXPECT_NE(ptx.find(".shared"), std::string::npos);
  EXPECT_NE(ptx.find("bar.sync"), std::string::npos);
}

TEST(Nvrtc, ACompileErrorNamesTheKernelsTheArchitectureAndQuotesTheLog) {
  const std::string broken = cuda_device_c_source({{"T", kFloat32}}, "NB_KERNEL nb_broken(NB_GLOBAL T* y) {\n"
                                                                     "  y[NB_INDEX] = undeclared_thing + 1;\n}\n");
  try {
    cuda::nvrtc_compile(broken, "broken_op", "compute_90");
    FAIL() << "expected a nabla::Error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("broken_op"), std::string::npos) << what;
    EXPECT_NE(what.find("compute_90"), std::string::npos) << what;
    EXPECT_NE(what.find("NVRTC_ERROR_COMPILATION"), std::string::npos) << what;
    EXPECT_NE(what.find("undeclared_thing"), std::string::npos) << what;  // the log's quote of the line
    EXPECT_NE(what.find("broken_op.cu("), std::string::npos) << what;     // the log's file and line
  }
}

TEST(Nvrtc, ALongLogIsCutToItsFirstLines) {
  std::string body;
  for (int i = 0; i < 60; ++i) body += "NB_KERNEL k" + std::to_string(i) + "() { undeclared_" + std::to_string(i) + " = 1; }\n";
  try {
    cuda::nvrtc_compile(cuda_device_c_source({}, body), "many_errors", "compute_90");
    FAIL() << "expected a nabla::Error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("undeclared_0"), std::string::npos);
    EXPECT_EQ(what.find("undeclared_59"), std::string::npos);
    EXPECT_NE(what.find("more lines)"), std::string::npos);
  }
}

TEST(Nvrtc, AnInvalidArchitectureIsAClearError) {
  for (const char* arch : {"", "90", "sm90", "compute_9", "sm_9000", "compute_90;rm -rf", "gfx90a"}) {
    EXPECT_FALSE(cuda::is_valid_arch(arch)) << arch;
    try {
      cuda::nvrtc_compile(softmax_source(kFloat32), "softmax", arch);
      FAIL() << "expected a nabla::Error for " << arch;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("expected compute_XX (PTX) or sm_XX"), std::string::npos) << e.what();
    }
  }
  for (const char* arch : {"compute_75", "sm_80", "sm_90a", "compute_100"}) EXPECT_TRUE(cuda::is_valid_arch(arch)) << arch;
}

TEST(Nvrtc, TheTargetOfAGpuIsItsCubinElseTheNewestPtx) {
  const std::vector<int> archs = cuda::nvrtc_supported_archs();
  ASSERT_FALSE(archs.empty());
  EXPECT_TRUE(std::is_sorted(archs.begin(), archs.end()));
  EXPECT_NE(std::find(archs.begin(), archs.end(), 90), archs.end()) << "NVRTC without the H100's sm_90";
  EXPECT_EQ(cuda::arch_for_device(9, 0), "sm_90");
  EXPECT_EQ(cuda::arch_for_device(99, 9), "compute_" + std::to_string(archs.back()));  // a GPU newer than NVRTC
  EXPECT_THROW(cuda::arch_for_device(3, 5), Error);  // Kepler
  // Each one compiles.
  for (const std::string arch : {cuda::arch_for_device(9, 0), cuda::arch_for_device(99, 9)})
    EXPECT_FALSE(cuda::nvrtc_compile(softmax_source(kFloat32), "softmax", arch).empty()) << arch;
}

TEST(Nvrtc, AnArchitectureNvrtcDoesNotSupportIsAnError) {
  EXPECT_THROW(cuda::nvrtc_compile(softmax_source(kFloat32), "softmax", "compute_35"), Error);
}

TEST(CudaSource, TypedefsUseCudaTypesAndRejectHalfPrecision) {
  const std::string s = cuda_device_c_source({{"T", kBool}, {"A", kInt64}}, "");
  EXPECT_NE(s.find("typedef unsigned char T;"), std::string::npos);
  EXPECT_NE(s.find("typedef long A;"), std::string::npos);
  EXPECT_NE(s.find("#define NB_KERNEL extern \"C\" __global__ void"), std::string::npos);
  EXPECT_EQ(cuda::c_type(kFloat16), nullptr);
  EXPECT_EQ(cuda::c_type(kBFloat16), nullptr);
  try {
    cuda_device_c_source({{"T", kFloat16}}, "");
    FAIL() << "expected a nabla::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("float16"), std::string::npos) << e.what();
  }
}

TEST(CudaProgramCache, MemoryThenDiskThenCompile) {
  TempDir dir;
  const std::string source = softmax_source(kFloat64);
  cuda::NvrtcTarget target;
  std::string first;
  {
    cuda::ProgramCache cache(dir.path().string());
    first = *cache.get(source, "softmax", target);
    EXPECT_EQ(*cache.get(source, "softmax", target), first);
    const cuda::ProgramCacheStats s = cache.stats();
    EXPECT_EQ(s.compiled, 1);
    EXPECT_EQ(s.memory_hits, 1);
    EXPECT_EQ(s.loaded_from_disk, 0);
    EXPECT_GT(s.compile_seconds, 0.0);
    EXPECT_TRUE(fs::exists(cache.file_for(source, target)));
    EXPECT_EQ(fs::path(cache.file_for(source, target)).extension(), ".ptx");
  }
  // A new cache object, as a new process: read from disk, the same bytes.
  cuda::ProgramCache again(dir.path().string());
  EXPECT_EQ(*again.get(source, "softmax", target), first);
  EXPECT_EQ(again.stats().compiled, 0);
  EXPECT_EQ(again.stats().loaded_from_disk, 1);
  // clear_memory: the next get reads the disk again.
  again.clear_memory();
  EXPECT_EQ(*again.get(source, "softmax", target), first);
  EXPECT_EQ(again.stats().loaded_from_disk, 2);
  // No temporary files left behind.
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();
    ++files;
  }
  EXPECT_EQ(files, 1);
}

TEST(CudaProgramCache, TheKeyHoldsTheArchitectureAndTheSource) {
  TempDir dir;
  cuda::ProgramCache cache(dir.path().string());
  cuda::NvrtcTarget h100, turing, cubin;
  turing.arch = "compute_75";
  cubin.arch = "sm_90";
  const std::string source = softmax_source(kFloat32);
  const std::string a = *cache.get(source, "softmax", h100);
  const std::string b = *cache.get(source, "softmax", turing);
  const std::string c = *cache.get(source, "softmax", cubin);
  const std::string d = *cache.get(softmax_source(kFloat64), "softmax", h100);
  EXPECT_EQ(cache.stats().compiled, 4);
  EXPECT_NE(a, b);
  EXPECT_NE(b.find(".target sm_75"), std::string::npos);
  EXPECT_EQ(c.substr(0, 4), std::string("\x7f" "ELF", 4));
  EXPECT_NE(a, d);
  EXPECT_EQ(fs::path(cache.file_for(source, cubin)).extension(), ".cubin");
  EXPECT_NE(cache.file_for(source, h100), cache.file_for(source, turing));
}

// Each kind of damage: the file is ignored, the program compiled again and
// the file rewritten whole.
TEST(CudaProgramCache, ADamagedFileIsRecompiledAndRewritten) {
  TempDir dir;
  const std::string source = softmax_source(kFloat32);
  const cuda::NvrtcTarget target;
  std::string good_file, image;
  {
    cuda::ProgramCache cache(dir.path().string());
    image = *cache.get(source, "softmax", target);
    good_file = read_file(cache.file_for(source, target));
  }
  ASSERT_GT(good_file.size(), source.size() + image.size());
  auto flip = [](std::string s, std::size_t at) {
    s[at] = static_cast<char>(s[at] ^ 0x20);
    return s;
  };
  const std::pair<const char*, std::string> damages[] = {
      {"empty", ""},
      {"truncated in the header", good_file.substr(0, 12)},
      {"truncated in the image", good_file.substr(0, good_file.size() - image.size() / 2)},
      {"checksum missing", good_file.substr(0, good_file.size() - 8)},
      {"a byte of the image changed", flip(good_file, good_file.size() - 8 - image.size() / 2)},
      {"a byte of the key changed", flip(good_file, 40)},
      {"bad magic", flip(good_file, 0)},
      {"trailing bytes", good_file + "x"},
  };
  for (const auto& [what, bytes] : damages) {
    SCOPED_TRACE(what);
    cuda::ProgramCache cache(dir.path().string());
    const fs::path file = cache.file_for(source, target);
    write_file(file, bytes);
    EXPECT_EQ(*cache.get(source, "softmax", target), image);
    EXPECT_EQ(cache.stats().compiled, 1);
    EXPECT_EQ(cache.stats().loaded_from_disk, 0);
    EXPECT_EQ(read_file(file), good_file);
  }
}

TEST(CudaProgramCache, AnUnwritableDirectoryCostsACompileNotAnError) {
  TempDir dir;
  fs::create_directories(dir.path());
  const fs::path blocker = dir.path() / "a_file";
  write_file(blocker, "not a directory");
  cuda::ProgramCache cache((blocker / "cache").string());
  const std::string source = softmax_source(kFloat32);
  EXPECT_FALSE(cache.get(source, "softmax", cuda::NvrtcTarget())->empty());
  EXPECT_EQ(cache.stats().compiled, 1);
}

TEST(CudaProgramCache, WithoutADirectoryImagesStayInMemory) {
  cuda::ProgramCache cache("");
  EXPECT_EQ(cache.file_for(softmax_source(kFloat32), cuda::NvrtcTarget()), "");
  cache.get(softmax_source(kFloat32), "softmax", cuda::NvrtcTarget());
  cache.get(softmax_source(kFloat32), "softmax", cuda::NvrtcTarget());
  EXPECT_EQ(cache.stats().compiled, 1);
  EXPECT_EQ(cache.stats().memory_hits, 1);
}

// Threads asking at once (as ops on several host threads will): every one
// gets the image, and each program is in memory once afterwards.
TEST(CudaProgramCache, ThreadsShareOneCache) {
  TempDir dir;
  cuda::ProgramCache cache(dir.path().string());
  const std::string sources[] = {softmax_source(kFloat32), softmax_source(kFloat64)};
  std::string images[8];
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&, i] { images[i] = *cache.get(sources[i % 2], "softmax", cuda::NvrtcTarget()); });
  for (std::thread& t : threads) t.join();
  for (int i = 2; i < 8; ++i) EXPECT_EQ(images[i], images[i % 2]);
  EXPECT_NE(images[0], images[1]);
  const cuda::ProgramCacheStats s = cache.stats();
  EXPECT_EQ(s.compiled + s.loaded_from_disk + s.memory_hits, 8);
  EXPECT_GE(s.compiled, 2);
  cache.get(sources[0], "softmax", cuda::NvrtcTarget());
  EXPECT_EQ(cache.stats().memory_hits, s.memory_hits + 1);
  // The files the racing threads wrote are whole.
  cuda::ProgramCache next(dir.path().string());
  for (int i = 0; i < 2; ++i) EXPECT_EQ(*next.get(sources[i], "softmax", cuda::NvrtcTarget()), images[i]);
  EXPECT_EQ(next.stats().loaded_from_disk, 2);
}

TEST(CudaProgramCache, TheDirectoryComesFromTheEnvironment) {
  {
    EnvVar own("NABLA_CUDA_CACHE_DIR", "/some/where");
    EXPECT_EQ(cuda::default_program_cache_dir(), "/some/where");
  }
  {
    EnvVar off("NABLA_CUDA_CACHE_DIR", "");
    EXPECT_EQ(cuda::default_program_cache_dir(), "");
  }
  {
    EnvVar own("NABLA_CUDA_CACHE_DIR", nullptr);
    EnvVar xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(cuda::default_program_cache_dir(), "/xdg/nabla/cuda");
  }
  {
    EnvVar own("NABLA_CUDA_CACHE_DIR", nullptr);
    EnvVar xdg("XDG_CACHE_HOME", "");
    EnvVar home("HOME", "/home/someone");
    EXPECT_EQ(cuda::default_program_cache_dir(), "/home/someone/.cache/nabla/cuda");
  }
}

}  // namespace
}  // namespace nabla::testing

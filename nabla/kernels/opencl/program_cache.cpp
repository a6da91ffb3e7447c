#include "nabla/kernels/opencl/program_cache.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <unordered_map>
#include <vector>

#include "nabla/core/atomic_file.h"
#include "nabla/kernels/opencl/runtime.h"
#include "nabla/opencl.h"

namespace nabla::opencl {
namespace {

// Options are part of the disk key. No fast-math: results must match the CPU.
constexpr const char* kBuildOptions = "-cl-std=CL1.2";
constexpr char kMagic[8] = {'N', 'B', 'L', 'C', 'L', 'B', 'N', '1'};

std::mutex g_mu;
std::unordered_map<std::string, std::shared_ptr<CompiledKernel>> g_kernels;  // "<device>|<key>"
ProgramCacheStats g_stats;

uint64_t fnv1a(const void* data, std::size_t n, uint64_t h = 1469598103934665603ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}
uint64_t fnv1a(const std::string& s, uint64_t h = 1469598103934665603ull) { return fnv1a(s.data(), s.size(), h); }

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string build_log(cl_program program, cl_device_id device) {
  std::size_t n = 0;
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
  std::string log(n, '\0');
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

std::string cache_file(const DeviceContext& dev, const std::string& source) {
  const std::string dir = program_cache_dir();
  if (dir.empty()) return "";
  uint64_t h = fnv1a(source);
  h = fnv1a(dev.name + '\n' + dev.driver_version + '\n' + dev.platform_name + '\n' + kBuildOptions, h);
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.clbin", static_cast<unsigned long long>(h));
  return dir + "/" + name;
}

// File layout: magic, source size, source, binary size, binary, FNV-1a of
// everything before it. Returns the binary, or empty when the file is absent,
// malformed or for another source.
std::vector<unsigned char> read_binary(const std::string& path, const std::string& source) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t pos = 0;
  auto take = [&](void* dst, std::size_t n) {
    if (bytes.size() - pos < n) return false;
    std::memcpy(dst, bytes.data() + pos, n);
    pos += n;
    return true;
  };
  char magic[8];
  uint64_t source_size = 0, binary_size = 0, checksum = 0;
  if (!take(magic, 8) || std::memcmp(magic, kMagic, 8) != 0 || !take(&source_size, 8) ||
      source_size != source.size() || bytes.size() - pos < source_size ||
      std::memcmp(bytes.data() + pos, source.data(), source_size) != 0)
    return {};
  pos += source_size;
  if (!take(&binary_size, 8) || binary_size == 0 || bytes.size() - pos < binary_size) return {};
  std::vector<unsigned char> binary(bytes.begin() + static_cast<std::ptrdiff_t>(pos),
                                    bytes.begin() + static_cast<std::ptrdiff_t>(pos + binary_size));
  pos += binary_size;
  const uint64_t expected = fnv1a(bytes.data(), pos);
  if (!take(&checksum, 8) || checksum != expected || pos != bytes.size()) return {};
  return binary;
}

// Best effort: a cache that cannot be written (read-only home, full disk)
// costs a compilation next time, not an error.
void write_binary(const std::string& path, const std::string& source, cl_program program) {
  std::size_t n = 0;
  if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, nullptr) != CL_SUCCESS || n == 0) return;
  std::vector<unsigned char> binary(n);
  unsigned char* ptr = binary.data();
  if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr) != CL_SUCCESS) return;
  try {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::string bytes(kMagic, 8);
    auto put = [&](const void* p, std::size_t k) { bytes.append(static_cast<const char*>(p), k); };
    const uint64_t source_size = source.size(), binary_size = n;
    put(&source_size, 8);
    bytes += source;
    put(&binary_size, 8);
    put(binary.data(), n);
    const uint64_t checksum = fnv1a(bytes.data(), bytes.size());
    put(&checksum, 8);
    AtomicFile f(path, "opencl program cache");
    f.write(bytes.data(), bytes.size());
    f.commit();
  } catch (const std::exception&) {
  }
}

cl_program build_from_binary(const DeviceContext& dev, const std::vector<unsigned char>& binary) {
  const unsigned char* ptr = binary.data();
  const std::size_t n = binary.size();
  cl_int status = CL_SUCCESS, err = CL_SUCCESS;
  cl_program p = clCreateProgramWithBinary(dev.context, 1, &dev.id, &n, &ptr, &status, &err);
  if (err != CL_SUCCESS || status != CL_SUCCESS) {
    if (p) clReleaseProgram(p);
    return nullptr;
  }
  if (clBuildProgram(p, 1, &dev.id, kBuildOptions, nullptr, nullptr) != CL_SUCCESS) {
    clReleaseProgram(p);
    return nullptr;
  }
  return p;
}

cl_program build_from_source(const DeviceContext& dev, const std::string& source) {
  const char* text = source.c_str();
  const std::size_t n = source.size();
  cl_int err = CL_SUCCESS;
  cl_program p = clCreateProgramWithSource(dev.context, 1, &text, &n, &err);
  check(err, "clCreateProgramWithSource");
  err = clBuildProgram(p, 1, &dev.id, kBuildOptions, nullptr, nullptr);
  if (err != CL_SUCCESS) {
    std::string log = build_log(p, dev.id);
    clReleaseProgram(p);
    check(err, "clBuildProgram", ("a generated kernel did not compile on opencl:" + std::to_string(dev.index) +
                                  " (a bug in nabla); build log:\n" + log + "\nsource:\n" + source)
                                     .c_str());
  }
  return p;
}

}  // namespace

CompiledKernel::~CompiledKernel() {
  if (kernel) clReleaseKernel(kernel);
  if (program) clReleaseProgram(program);
}

std::shared_ptr<CompiledKernel> get_kernel(int index, const std::string& key, const char* kernel_name,
                                           const std::function<std::string()>& make_source) {
  std::lock_guard lock(g_mu);
  const std::string memory_key = std::to_string(index) + '|' + key;
  if (auto it = g_kernels.find(memory_key); it != g_kernels.end()) {
    ++g_stats.memory_hits;
    return it->second;
  }
  DeviceContext& dev = device(index);
  const std::string source = make_source();
  const std::string path = cache_file(dev, source);
  auto made = std::make_shared<CompiledKernel>();
  const auto t0 = std::chrono::steady_clock::now();
  if (!path.empty()) {
    std::vector<unsigned char> binary = read_binary(path, source);
    if (!binary.empty() && (made->program = build_from_binary(dev, binary))) {
      ++g_stats.loaded_from_disk;
      g_stats.load_seconds += seconds_since(t0);
    }
  }
  if (!made->program) {
    made->program = build_from_source(dev, source);
    ++g_stats.compiled;
    g_stats.compile_seconds += seconds_since(t0);
    if (!path.empty()) write_binary(path, source, made->program);
  }
  cl_int err = CL_SUCCESS;
  made->kernel = clCreateKernel(made->program, kernel_name, &err);
  check(err, "clCreateKernel", kernel_name);
  g_kernels.emplace(memory_key, made);
  return made;
}

ProgramCacheStats program_cache_stats() {
  std::lock_guard lock(g_mu);
  return g_stats;
}

void clear_program_memory_cache() {
  std::lock_guard lock(g_mu);
  g_kernels.clear();
}

std::string program_cache_dir() {
  if (const char* dir = std::getenv("NABLA_OPENCL_CACHE_DIR")) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/nabla/opencl";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/nabla/opencl";
  return "";
}

}  // namespace nabla::opencl

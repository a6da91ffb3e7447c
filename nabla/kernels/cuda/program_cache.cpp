#include "nabla/kernels/cuda/program_cache.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "nabla/core/atomic_file.h"

namespace nabla::cuda {
namespace {

constexpr char kMagic[8] = {'N', 'B', 'L', 'C', 'U', 'D', 'A', '1'};

uint64_t fnv1a(const void* data, std::size_t n, uint64_t h = 1469598103934665603ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// File layout: magic, key size, key, image size, image, FNV-1a of everything
// before it (sizes as 8-byte little-endian host integers). Returns the image,
// or null when the file is absent, malformed, truncated or for another key.
std::shared_ptr<const std::string> read_image(const std::string& path, const std::string& key) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return nullptr;
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t pos = 0;
  auto take = [&](void* dst, std::size_t n) {
    if (bytes.size() - pos < n) return false;
    std::memcpy(dst, bytes.data() + pos, n);
    pos += n;
    return true;
  };
  char magic[8];
  uint64_t key_size = 0, image_size = 0, checksum = 0;
  if (!take(magic, 8) || std::memcmp(magic, kMagic, 8) != 0 || !take(&key_size, 8) || key_size != key.size() ||
      bytes.compare(pos, key.size(), key) != 0)
    return nullptr;
  pos += key.size();
  if (!take(&image_size, 8) || image_size == 0 || bytes.size() - pos < image_size) return nullptr;
  auto image = std::make_shared<std::string>(bytes, pos, image_size);
  pos += image_size;
  const uint64_t expected = fnv1a(bytes.data(), pos);
  if (!take(&checksum, 8) || checksum != expected || pos != bytes.size()) return nullptr;
  return image;
}

// Best effort: a cache that cannot be written (read-only home, full disk)
// costs a compile next time, not an error.
void write_image(const std::string& path, const std::string& key, const std::string& image) {
  try {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::string bytes(kMagic, 8);
    auto put = [&](const void* p, std::size_t n) { bytes.append(static_cast<const char*>(p), n); };
    const uint64_t key_size = key.size(), image_size = image.size();
    put(&key_size, 8);
    bytes += key;
    put(&image_size, 8);
    bytes += image;
    const uint64_t checksum = fnv1a(bytes.data(), bytes.size());
    put(&checksum, 8);
    AtomicFile f(path, "cuda program cache");
    f.write(bytes.data(), bytes.size());
    f.commit();
  } catch (const std::exception&) {
  }
}

}  // namespace

std::string default_program_cache_dir() {
  if (const char* dir = std::getenv("NABLA_CUDA_CACHE_DIR")) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/nabla/cuda";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/nabla/cuda";
  return "";
}

ProgramCache::ProgramCache(std::string dir) : dir_(std::move(dir)), version_(nvrtc_version()) {}

std::string ProgramCache::key_of(const std::string& source, const NvrtcTarget& target) const {
  std::string key = "nabla cuda program\narch " + target.arch + "\nnvrtc " + version_ + "\noptions";
  for (const std::string& o : nvrtc_options(target)) key += ' ' + o;
  key += "\n\n";
  key += source;
  return key;
}

std::string ProgramCache::file_for(const std::string& source, const NvrtcTarget& target) const {
  if (dir_.empty()) return "";
  const std::string key = key_of(source, target);
  char name[40];
  std::snprintf(name, sizeof name, "%016llx.%s", static_cast<unsigned long long>(fnv1a(key.data(), key.size())),
                is_cubin_arch(target.arch) ? "cubin" : "ptx");
  return dir_ + "/" + name;
}

std::shared_ptr<const std::string> ProgramCache::get(const std::string& source, const std::string& name,
                                                     const NvrtcTarget& target) {
  const std::string key = key_of(source, target);
  {
    std::lock_guard lock(mu_);
    if (auto it = images_.find(key); it != images_.end()) {
      ++stats_.memory_hits;
      return it->second;
    }
  }
  // Disk and NVRTC outside the lock: other programs' lookups go on meanwhile.
  const std::string path = file_for(source, target);
  const auto t0 = std::chrono::steady_clock::now();
  std::shared_ptr<const std::string> image = path.empty() ? nullptr : read_image(path, key);
  const bool from_disk = image != nullptr;
  if (!from_disk) {
    image = std::make_shared<const std::string>(nvrtc_compile(source, name, target));
    if (!path.empty()) {
      std::lock_guard write_lock(write_mu_);
      write_image(path, key, *image);
    }
  }
  const double seconds = seconds_since(t0);
  std::lock_guard lock(mu_);
  if (from_disk) {
    ++stats_.loaded_from_disk;
    stats_.load_seconds += seconds;
  } else {
    ++stats_.compiled;
    stats_.compile_seconds += seconds;
  }
  return images_.emplace(key, std::move(image)).first->second;  // a racing thread's image if it came first
}

ProgramCacheStats ProgramCache::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

void ProgramCache::clear_memory() {
  std::lock_guard lock(mu_);
  images_.clear();
}

ProgramCache& program_cache() {
  static ProgramCache cache(default_program_cache_dir());
  return cache;
}

}  // namespace nabla::cuda

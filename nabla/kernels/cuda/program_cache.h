// The compiled images (PTX or cubin, nvrtc.h) of the CUDA kernels, cached:
// NVRTC takes tens to hundreds of milliseconds a program, so each program is
// compiled once per process (kept in memory) and its image kept on disk, so
// that the next process loads it instead of compiling. The key is the source
// itself with the architecture, NVRTC's version and the compile options:
// another GPU, compiler or option set never reuses an image.
//
// Files (one per program, <hash>.ptx or <hash>.cubin in the cache directory)
// are written atomically (core/atomic_file.h) and checked when read: magic,
// the full key (so a hash collision is a miss), the image's length and a
// checksum. A truncated, corrupt or foreign file is recompiled (and
// rewritten), never trusted; a directory that cannot be written costs a
// compile next time, not an error.
//
// The cache returns image bytes; loading them into a CUmodule (and keeping
// one per device) is the runtime's job, so this file needs libnvrtc only.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "nabla/kernels/cuda/nvrtc.h"

namespace nabla::cuda {

struct ProgramCacheStats {
  int64_t compiled = 0;          // programs compiled by NVRTC
  int64_t loaded_from_disk = 0;  // images read from the disk cache
  int64_t memory_hits = 0;       // images found in memory
  double compile_seconds = 0;    // total time in NVRTC
  double load_seconds = 0;       // total time reading images from disk
};

// The directory of the on-disk cache: $NABLA_CUDA_CACHE_DIR, else
// $XDG_CACHE_HOME/nabla/cuda, else ~/.cache/nabla/cuda. An empty
// NABLA_CUDA_CACHE_DIR ("") turns the disk cache off (returns "").
std::string default_program_cache_dir();

class ProgramCache {
 public:
  // dir: the disk cache's directory (created when first written); "" keeps
  // images in memory only.
  explicit ProgramCache(std::string dir);

  // The image of `source` for `target`: from memory, else from disk, else
  // compiled by NVRTC (name: the op or kernel family, for errors). Thread-
  // safe; two threads asking for one new program may both compile it.
  std::shared_ptr<const std::string> get(const std::string& source, const std::string& name,
                                         const NvrtcTarget& target);

  // The disk file an image of `source` for `target` lives in ("" without a
  // disk cache).
  std::string file_for(const std::string& source, const NvrtcTarget& target) const;

  ProgramCacheStats stats() const;
  // Forgets the images held in memory (the disk cache stays): the next get()
  // of each reads it from disk, as a new process would.
  void clear_memory();
  const std::string& dir() const { return dir_; }

 private:
  std::string key_of(const std::string& source, const NvrtcTarget& target) const;
  std::string dir_;
  std::string version_;  // NVRTC's, read once
  mutable std::mutex mu_;
  // AtomicFile's temporary file is per process (path.tmp.<pid>): two threads
  // writing one program's file take turns.
  std::mutex write_mu_;
  std::unordered_map<std::string, std::shared_ptr<const std::string>> images_;  // by key
  ProgramCacheStats stats_;
};

// The process's cache, in default_program_cache_dir() (read at first use).
ProgramCache& program_cache();

}  // namespace nabla::cuda

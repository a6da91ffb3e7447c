// Shared by the libFuzzer targets (fuzz/*_fuzz.cpp): the input as a file for
// readers that take a path, and the one rule of every target — a nabla::Error
// is the reader's normal refusal of bad bytes; anything else (another
// exception, a crash, a sanitizer report, a leak, a timeout) is a finding.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "nabla/core/error.h"
#include "nabla/core/tensor.h"

namespace nabla::fuzz {

// A file of this process's own (several fuzzing jobs may run side by side),
// in /dev/shm when it exists (no disk writes per execution), else in TMPDIR.
inline std::string input_path(const char* suffix) {
  static const std::string dir = [] {
    if (access("/dev/shm", W_OK) == 0) return std::string("/dev/shm");
    const char* tmp = std::getenv("TMPDIR");
    return std::string(tmp && *tmp ? tmp : "/tmp");
  }();
  return dir + "/nabla_fuzz_" + std::to_string(getpid()) + suffix;
}

// Removes the input file when the fuzzer exits normally.
struct RemoveAtExit {
  std::string path;
  ~RemoveAtExit() { std::remove(path.c_str()); }
};

// Writes `size` bytes to input_path(suffix) and returns the path.
inline std::string write_input(const uint8_t* data, size_t size, const char* suffix) {
  const std::string path = input_path(suffix);
  static RemoveAtExit cleanup{path};  // one suffix per target
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || (size && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
    std::perror(path.c_str());
    std::abort();  // the harness itself failed: not a finding about nabla
  }
  return path;
}

// Runs `read`; a nabla::Error is the expected refusal, everything else escapes
// (libFuzzer reports an uncaught exception as a crash). With
// NABLA_FUZZ_PRINT_ERRORS set, refusals are printed (to see why a seed or a
// regression input is refused).
template <class F>
void refused_or_read(F&& read) {
  static const bool print = std::getenv("NABLA_FUZZ_PRINT_ERRORS") != nullptr;
  try {
    read();
  } catch (const nabla::Error& e) {
    if (print) std::fprintf(stderr, "refused: %s\n", e.what());
  }
}

// Reads every byte of a loaded tensor, so that ASan sees a tensor whose
// storage is shorter than its shape says. Returns a value the caller keeps.
inline uint64_t touch(const Tensor& t) {
  if (!t.defined()) return 0;
  const Tensor c = t.contiguous();
  const auto* p = static_cast<const uint8_t*>(c.raw_data());
  const uint64_t n = static_cast<uint64_t>(c.numel()) * itemsize(c.dtype());
  uint64_t h = 0;
  for (uint64_t i = 0; i < n; ++i) h = h * 31 + p[i];
  return h;
}

}  // namespace nabla::fuzz

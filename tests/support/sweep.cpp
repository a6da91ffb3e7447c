// The sweep runner of sweep.h.
#include "tests/support/sweep.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <thread>

#include "nabla/core/error.h"

namespace nabla::testing {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kHang = std::chrono::seconds(10);

// Aborts the process, naming the mutant, when one load runs past kHang: a
// hang must fail fast and say which file, not wait for ctest's timeout.
class Watchdog {
 public:
  Watchdog() : thread_([this] { watch(); }) {}
  ~Watchdog() {
    stop_ = true;
    thread_.join();
  }
  void start(const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex_);
    what_ = what;
    since_ = Clock::now();
    busy_ = true;
  }
  void done() { busy_ = false; }

 private:
  void watch() {
    while (!stop_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      std::lock_guard<std::mutex> lock(mutex_);
      if (busy_ && Clock::now() - since_ > kHang) {
        std::fprintf(stderr, "[sweep] HANG: a load ran for over 10 s: %s\n", what_.c_str());
        std::abort();
      }
    }
  }
  std::mutex mutex_;
  std::string what_;
  Clock::time_point since_;
  std::atomic<bool> busy_{false}, stop_{false};
  std::thread thread_;
};

}  // namespace

void put_file(const std::string& path, const std::string& bytes) {
  // A new file, not one truncated and rewritten: ext4 flushes the latter to
  // disk on close (auto_da_alloc), which made the sweep wait on the disk.
  std::filesystem::remove(path);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

int mutant_count(int n) {
  const char* scale = std::getenv("NABLA_SWEEP_SCALE");
  return scale && std::atoi(scale) > 0 ? n * std::atoi(scale) : n;
}

std::string sweep_dir(const std::string& name) {
  std::string safe = name;  // "npz_np.savez, stored" -> "npz_np_savez__stored"
  for (char& ch : safe)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  const auto dir = std::filesystem::temp_directory_path() / ("nabla_sweep_" + safe + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

SweepTally run_sweep(const SweepCase& c, const std::string& good, const std::vector<Mutant>& mutants) {
  put_file(c.path, good);
  const std::string reference = c.load(c.path);
  SweepTally t;
  Watchdog watchdog;
  const auto started = Clock::now();
  const auto fail = [&](const Mutant& m, const std::string& why) {
    if (++t.failures > 10) return;  // the summary counts the rest
    ADD_FAILURE() << c.reader << ": " << kind_name(m.kind) << " mutant (" << m.what << "): " << why;
  };
  for (const Mutant& m : mutants) {
    put_file(c.path, m.bytes);
    ++t.mutants;
    watchdog.start(c.reader + ": " + m.what);
    const auto t0 = Clock::now();
    std::string loaded, error;
    bool refused = false;
    try {
      loaded = c.load(c.path);
    } catch (const Error& e) {
      refused = true;
      error = e.what();
    } catch (const std::exception& e) {
      watchdog.done();
      fail(m, std::string("raised a std::exception that is not a nabla::Error: ") + e.what());
      continue;
    }
    watchdog.done();
    t.slowest_ms = std::max(t.slowest_ms, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    if (refused) {
      ++t.refused;
      if (error.find(c.api) == std::string::npos || error.find(c.path) == std::string::npos)
        fail(m, "the error does not name the API '" + c.api + "' and the file: " + error);
      if (c.after_refusal) c.after_refusal(m);
      continue;
    }
    const bool same = loaded == reference;
    ++(same ? t.identical : t.different);
    if (m.must_refuse)
      fail(m, same ? "loaded although a redundant field changed or declared bytes are missing"
                   : "loaded DIFFERENT data although a redundant field changed or declared bytes are missing");
    else if (!same && c.checked && !m.repaired)
      fail(m, "loaded DIFFERENT data from a file whose checksums or redundant fields should catch the damage");
  }
  t.total_s = std::chrono::duration<double>(Clock::now() - started).count();
  std::printf("[sweep] %s: %d mutants: %d refused, %d loaded identical, %d loaded different; %d failures; "
              "slowest load %.2f ms; %.2f s\n",
              c.reader.c_str(), t.mutants, t.refused, t.identical, t.different, t.failures, t.slowest_ms, t.total_s);
  std::fflush(stdout);
  EXPECT_EQ(t.failures, 0) << c.reader << ": the first 10 are reported above";
  // Small files: a load that takes a second is a near-hang (a loop bounded by
  // a damaged count), even under the sanitizers on a busy machine.
  EXPECT_LT(t.slowest_ms, 1000) << c.reader;
  return t;
}

}  // namespace nabla::testing

// The corrupted-file sweep's runner (issue 13, acceptance 2): loads every
// mutant of a good file (mutator.h) with one reader and checks the outcome.
// A load either raises a nabla::Error whose message names the API and the
// file, or succeeds; a success is compared with the good file's load:
//   - a format with checksums or redundant fields ("checked") must give the
//     original data for every mutant its repair did not make consistent;
//   - a mutant with a changed redundant field or a cut-off declared length
//     (Mutant::must_refuse) must not load at all;
//   - other loads are allowed (the bytes changed are plain values) and counted.
// Each load is timed and must take under 1 s; a watchdog aborts the run,
// naming the mutant, if one takes over 10 s (a hang). Prints one summary line
// per sweep.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "tests/support/file_bytes.h"
#include "tests/support/mutator.h"

namespace nabla::testing {

struct SweepCase {
  std::string reader;  // the summary line's name: "read_npz (deflate)"
  std::string api;     // every refusal must name it: "read_npz"
  std::string path;    // where each mutant is written (and what refusals must name)
  bool checked = false;
  // Loads the file at `path` and describes what it loaded, completely (names,
  // dtypes, shapes, bytes): equal descriptions mean equal data.
  std::function<std::string(const std::string& path)> load;
  // Runs after each refusal (checks that nothing was changed, for readers that
  // restore into live objects). Optional.
  std::function<void(const Mutant&)> after_refusal;
};

struct SweepTally {
  int mutants = 0, refused = 0, identical = 0, different = 0;
  int failures = 0;  // outcomes the rules above forbid (each also an EXPECT failure)
  double slowest_ms = 0, total_s = 0;
};

// Writes `good` to c.path, loads it for reference, then each mutant in turn.
SweepTally run_sweep(const SweepCase& c, const std::string& good, const std::vector<Mutant>& mutants);

// Writes `bytes` to `path` (file_bytes, in file_bytes.h, reads it back).
void put_file(const std::string& path, const std::string& bytes);

// `n` times NABLA_SWEEP_SCALE (an integer, default 1): CI runs the default;
// NABLA_SWEEP_SCALE=50 ./nabla_tests --gtest_filter='*Sweep*' hunts longer.
int mutant_count(int n);

// A directory for a sweep's files, removed by the caller (std::filesystem::remove_all).
std::string sweep_dir(const std::string& name);

}  // namespace nabla::testing

// What this machine's core can do at best, measured (issue 20, acceptance 2):
// the single-thread FMA peak and the memory bandwidth of an Adam-shaped
// streaming loop. bench/seed_step_bench --floor N divides the seed MLP step's
// work by them to get its physical floor.
#pragma once

#include <cstdint>
#include <string>

namespace nabla_bench {

struct FmaPeak {
  double gflops = 0;  // float32 FLOP/s / 1e9 (an FMA is 2 FLOP), best of the repeats
  std::string isa;    // "avx512f" or "avx2+fma": the widest the CPU reports
};

// A tight loop of independent vector FMAs on the calling thread (enough
// accumulators to hide the FMA latency on every x86 core since Haswell);
// best of `repeats` runs of about `ms` milliseconds each.
FmaPeak measure_fma_peak(int repeats = 30, double ms = 2);

// Bytes per second / 1e9 of an Adam-shaped loop over `elements` float32
// elements per array: three arrays read and written in place (parameter and
// the two moments) and one read (the gradient), 28 bytes per element, with a
// few FMAs per element (no division or square root: the memory is measured,
// not the divider). Best of `repeats` passes after one warm-up pass, so at a
// size that fits a cache this is that cache's bandwidth, and at a size far
// beyond the last-level cache it is DRAM's.
double measure_adam_stream_gbps(int64_t elements, int repeats);

}  // namespace nabla_bench

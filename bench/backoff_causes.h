// The thread pool's back-offs by cause (nabla/core/parallel_stats.h), as the
// benches print them: backoff_causes=preempted/stalled/missed/off_cpu.
#pragma once
#include <string>

#include "nabla/core/parallel_stats.h"

// Weak: the benches also run against an older libnabla without it
// (loaded_bench.sh's BASELINE_LIB), which prints "-".
namespace nabla {
ParallelBackoffCauses parallel_backoff_causes() __attribute__((weak));
}

inline std::string backoff_causes() {
  if (!nabla::parallel_backoff_causes) return "-";
  nabla::ParallelBackoffCauses c = nabla::parallel_backoff_causes();
  return std::to_string(c.preempted) + "/" + std::to_string(c.stalled) + "/" + std::to_string(c.missed) + "/" +
         std::to_string(c.off_cpu);
}

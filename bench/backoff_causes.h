// The thread pool's back-offs by cause (nabla/core/parallel_stats.h), as the
// benches print them: backoff_causes=preempted/stalled/missed/off_cpu.
#pragma once
#include <string>

#include "nabla/core/parallel_stats.h"

inline std::string backoff_causes() {
  nabla::ParallelBackoffCauses c = nabla::parallel_backoff_causes();
  return std::to_string(c.preempted) + "/" + std::to_string(c.stalled) + "/" + std::to_string(c.missed) + "/" +
         std::to_string(c.off_cpu);
}

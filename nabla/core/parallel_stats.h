// What nabla's thread pool observed about the machine's load (parallel.cpp):
// for benchmarks and tests. Kept out of parallel.h, which every kernel
// includes.
#pragma once
#include <cstdint>

namespace nabla {

// Times the pool saw fewer free cores than threads (a worker preempted while
// it waited for work, or the caller left waiting on a descheduled worker) and
// backed off to running parallel regions on the calling thread alone.
int64_t parallel_backoff_events();
// Whether the pool is backing off now.
bool parallel_backing_off();

}  // namespace nabla

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
// The same events by what the pool saw first.
struct ParallelBackoffCauses {
  int64_t preempted = 0;  // a worker's spin loop was preempted
  int64_t stalled = 0;    // the caller waited long on a chunk a worker had claimed
  int64_t missed = 0;     // regions in a row that no awake worker came to help with
  int64_t off_cpu = 0;    // a ContentionProbe call spent mostly off the CPU
};
ParallelBackoffCauses parallel_backoff_causes();
// Whether the pool is backing off now. Kernels that hand work to another
// runtime's threads (oneDNN's OpenMP team) ask this to run single-threaded
// meanwhile: a team whose members are descheduled waits at every barrier.
bool parallel_backing_off();

// Times a call that runs on another runtime's threads (an OpenMP parallel
// region) and, when the calling thread spent most of it descheduled, makes
// the pool back off as if its own workers had been late.
class ContentionProbe {
 public:
  ContentionProbe();
  ~ContentionProbe();
  ContentionProbe(const ContentionProbe&) = delete;
  ContentionProbe& operator=(const ContentionProbe&) = delete;

 private:
  int64_t wall_ns_, cpu_ns_;
};

}  // namespace nabla

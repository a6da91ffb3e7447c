// A small thread pool for kernels: parallel_for splits [begin, end) into up to
// 4 chunks per thread when the range is at least `grain` long (below that it
// runs inline: small tensors pay nothing); free threads claim the chunks, and
// under load (parallel.cpp) the caller runs them. NABLA_NUM_THREADS: threads.
#pragma once
#include <cstdint>
#include <functional>

namespace nabla {

void set_num_threads(int n);
int get_num_threads();

// Elements below which elementwise loops stay on one thread.
inline constexpr int64_t kParallelGrain = 32768;

// Which thread runs which chunk of a region. kAnyThread: whoever is free
// takes the next chunk. kSameThread: each thread first runs its own
// contiguous share of the chunks, the same share region after region (and
// then helps with what is left of the others'), so memory a loop updates on
// every call (an optimizer's state) stays in one core's cache: Adam's step
// of the seed MLP took 20% less time at 2 threads (bench/README.md). The
// chunks, and so the results, are the same either way.
enum class ChunkAffinity { kAnyThread, kSameThread };

// Runs fn(begin, end) in chunks on the pool (type-erased slow path).
void parallel_for_pool(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& fn,
                       ChunkAffinity affinity = ChunkAffinity::kAnyThread);

// Small ranges run inline without type erasure: no std::function, no lock.
template <class Fn>
inline void parallel_for(int64_t begin, int64_t end, int64_t grain, Fn&& fn,
                         ChunkAffinity affinity = ChunkAffinity::kAnyThread) {
  if (end - begin < grain || end - begin <= 0) {
    if (end > begin) fn(begin, end);
    return;
  }
  parallel_for_pool(begin, end, grain, std::function<void(int64_t, int64_t)>(std::ref(fn)), affinity);
}

}  // namespace nabla

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

// Runs fn(begin, end) in chunks on the pool (type-erased slow path).
void parallel_for_pool(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

// Small ranges run inline without type erasure: no std::function, no lock.
template <class Fn>
inline void parallel_for(int64_t begin, int64_t end, int64_t grain, Fn&& fn) {
  if (end - begin < grain || end - begin <= 0) {
    if (end > begin) fn(begin, end);
    return;
  }
  parallel_for_pool(begin, end, grain, std::function<void(int64_t, int64_t)>(std::ref(fn)));
}

}  // namespace nabla

// A small thread pool for kernels: parallel_for splits [begin, end) into one
// chunk per thread when the range is at least `grain` long; below that it runs
// inline, so small tensors pay nothing. Thread count: set_num_threads() or the
// NABLA_NUM_THREADS environment variable (default: hardware threads).
#pragma once
#include <cstdint>
#include <functional>

namespace nabla {

void set_num_threads(int n);
int get_num_threads();

// Elements below which elementwise loops stay on one thread.
inline constexpr int64_t kParallelGrain = 32768;

void parallel_for(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

}  // namespace nabla

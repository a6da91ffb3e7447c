// Keeps OpenMP (Debian's oneDNN runtime) single-threaded on this thread for
// a scope. Kernels that call oneDNN split the work on nabla's own pool
// instead, one single-threaded oneDNN call per nabla thread: with OpenMP's
// own threads, libgomp's workers spin-wait for the next parallel region
// (milliseconds) on the cores nabla's pool needs for the elementwise ops in
// between, which made a 2-thread CNN training step several times slower on
// 2 cores. A single-threaded region starts no OpenMP workers at all.
#pragma once

// Weak, like in parallel.cpp: resolved from libgomp, which oneDNN loads.
extern "C" int omp_get_max_threads() __attribute__((weak));
extern "C" void omp_set_num_threads(int) __attribute__((weak));

namespace nabla::cpu {

class SingleThreadedOmp {
 public:
  SingleThreadedOmp() {
    if (omp_get_max_threads && omp_set_num_threads) {
      saved_ = omp_get_max_threads();
      if (saved_ != 1) omp_set_num_threads(1);
    }
  }
  ~SingleThreadedOmp() {
    if (saved_ != 1) omp_set_num_threads(saved_);
  }
  SingleThreadedOmp(const SingleThreadedOmp&) = delete;
  SingleThreadedOmp& operator=(const SingleThreadedOmp&) = delete;

 private:
  int saved_ = 1;
};

}  // namespace nabla::cpu

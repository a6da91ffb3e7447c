// Sets OpenMP's thread count (Debian's oneDNN runtime) on this thread for a
// scope. Kernels that call oneDNN keep it at 1 and split the work on nabla's
// own pool instead, one single-threaded oneDNN call per nabla thread: with
// OpenMP's own threads, libgomp's workers spin-wait for the next parallel
// region (milliseconds) on the cores nabla's pool needs for the elementwise
// ops in between, which made a 2-thread CNN training step 2-3x slower than a
// 1-thread one on a 2-core machine. A single-threaded region starts no
// OpenMP workers at all. (Work too small to split, such as a batch-1
// convolution, still gets OpenMP's threads.)
#pragma once

// Weak, like in parallel.cpp: resolved from libgomp, which oneDNN loads.
extern "C" int omp_get_max_threads() __attribute__((weak));
extern "C" void omp_set_num_threads(int) __attribute__((weak));

namespace nabla::cpu {

class ScopedOmpThreads {
 public:
  explicit ScopedOmpThreads(int n) : n_(n) {
    if (omp_get_max_threads && omp_set_num_threads) {
      saved_ = omp_get_max_threads();
      if (saved_ != n_) omp_set_num_threads(n_);
    }
  }
  ~ScopedOmpThreads() {
    if (saved_ != n_) omp_set_num_threads(saved_);
  }
  ScopedOmpThreads(const ScopedOmpThreads&) = delete;
  ScopedOmpThreads& operator=(const ScopedOmpThreads&) = delete;

 private:
  int n_, saved_ = n_;
};

}  // namespace nabla::cpu

#include "nabla/core/parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "nabla/core/error.h"

// The BLAS libraries' own thread pools follow nabla's thread count: OpenBLAS
// (pthreads) and oneDNN (OpenMP). Weak, so nabla links without either.
extern "C" void openblas_set_num_threads(int) __attribute__((weak));
extern "C" void omp_set_num_threads(int) __attribute__((weak));

namespace nabla {
namespace {

int default_threads() {
  if (const char* env = std::getenv("NABLA_NUM_THREADS")) {
    int n = std::atoi(env);
    if (n > 0) return n;
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

// Spins for up to `budget` waiting for ready() before the caller blocks.
// Kernels of one training step follow each other within microseconds; a
// worker parked on a condition variable takes tens of microseconds to be
// woken (a futex call and a reschedule), which at 2 threads cost more than
// the second thread gained on the seed step. So workers and the caller poll
// for a short while first and only then sleep.
template <class Ready>
bool spin_until(Ready&& ready, std::chrono::microseconds budget) {
  auto deadline = std::chrono::steady_clock::now() + budget;
  while (true) {
    for (int i = 0; i < 64; ++i) {
      if (ready()) return true;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    if (std::chrono::steady_clock::now() >= deadline) return ready();
  }
}

constexpr std::chrono::microseconds kSpin{100};

class ThreadPool {
 public:
  explicit ThreadPool(int n) { resize(n); }
  ~ThreadPool() { stop(); }

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  void resize(int n) {
    stop();
    stopping_ = false;
    // Workers start from the current generation so they never run a task
    // that was handed out before they existed.
    uint64_t start = work_.load();
    for (int i = 1; i < n; ++i) workers_.emplace_back([this, i, start] { loop(i, start); });
  }

  // Runs fn(chunk) for chunk in [0, chunks) on the pool; the caller takes chunk 0.
  void run(int chunks, const std::function<void(int)>& fn) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      task_ = &fn;
      pending_.store(chunks - 1);
      error_ = nullptr;
      // Generation and chunk count change together in one word, so a worker
      // never pairs a new generation with an old count (or the reverse).
      work_.store(pack(generation(work_.load()) + 1, chunks), std::memory_order_release);
    }
    cv_.notify_all();
    try {
      fn(0);
    } catch (...) {
      std::lock_guard<std::mutex> g(mu_);
      if (!error_) error_ = std::current_exception();
    }
    if (!spin_until([&] { return pending_.load(std::memory_order_acquire) == 0; }, kSpin)) {
      std::unique_lock<std::mutex> lock(mu_);
      done_cv_.wait(lock, [&] { return pending_.load() == 0; });
    }
    std::lock_guard<std::mutex> lock(mu_);
    task_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  static uint64_t pack(uint64_t generation, int chunks) { return generation << 16 | static_cast<uint64_t>(chunks); }
  static uint64_t generation(uint64_t work) { return work >> 16; }
  static int chunks(uint64_t work) { return static_cast<int>(work & 0xffff); }

  void loop(int id, uint64_t seen) {
    while (true) {
      auto changed = [&] { return stopping_.load() || work_.load(std::memory_order_acquire) != seen; };
      if (!spin_until(changed, kSpin)) {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, changed);
      }
      if (stopping_.load()) return;
      seen = work_.load(std::memory_order_acquire);
      if (id >= chunks(seen)) continue;
      // task_ stays valid: run() waits for this chunk before it returns.
      const std::function<void(int)>* fn;
      {
        std::lock_guard<std::mutex> lock(mu_);
        fn = task_;
      }
      try {
        (*fn)(id);
      } catch (...) {
        std::lock_guard<std::mutex> g(mu_);
        if (!error_) error_ = std::current_exception();
      }
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(mu_);  // pairs with the check in run()'s wait
        done_cv_.notify_one();
      }
    }
  }
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
    workers_.clear();
  }

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable cv_, done_cv_;
  const std::function<void(int)>* task_ = nullptr;  // guarded by mu_
  std::atomic<uint64_t> work_{0};                   // pack(generation, chunks)
  std::atomic<int> pending_{0};
  std::atomic<bool> stopping_{false};
  std::exception_ptr error_;  // guarded by mu_
};

std::atomic<int> g_num_threads{0};
std::mutex g_pool_mu;

ThreadPool& pool() {
  static ThreadPool* p = new ThreadPool(get_num_threads());  // leaked: lives until exit
  return *p;
}

thread_local bool t_in_parallel = false;

void set_blas_threads(int n) {
  if (openblas_set_num_threads) openblas_set_num_threads(n);
  if (omp_set_num_threads) omp_set_num_threads(n);
}

}  // namespace

int get_num_threads() {
  int n = g_num_threads.load();
  if (n == 0) {
    n = default_threads();
    g_num_threads.store(n);
    set_blas_threads(n);
  }
  return n;
}

void set_num_threads(int n) {
  NABLA_CHECK(n >= 1, "set_num_threads: expected a positive number of threads, got ", n);
  std::lock_guard<std::mutex> lock(g_pool_mu);
  g_num_threads.store(n);
  set_blas_threads(n);
  pool().resize(n);
}

void parallel_for_pool(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
  int64_t n = end - begin;
  if (n <= 0) return;
  int threads = get_num_threads();
  if (threads <= 1 || n < grain || t_in_parallel) {
    fn(begin, end);
    return;
  }
  std::lock_guard<std::mutex> lock(g_pool_mu);  // one parallel region at a time
  int chunks = static_cast<int>(std::min<int64_t>(pool().size(), (n + grain - 1) / grain));
  chunks = std::max(chunks, 1);
  int64_t step = (n + chunks - 1) / chunks;
  pool().run(chunks, [&](int c) {
    t_in_parallel = true;
    int64_t b = begin + c * step, e = std::min(end, b + step);
    if (b < e) fn(b, e);
    t_in_parallel = false;
  });
}

}  // namespace nabla

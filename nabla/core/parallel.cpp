#include "nabla/core/parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "nabla/core/error.h"
#include "nabla/core/parallel_stats.h"

// The BLAS libraries' own thread pools follow nabla's thread count: OpenBLAS
// (pthreads) and oneDNN (OpenMP). Weak, so nabla links without either.
extern "C" void openblas_set_num_threads(int) __attribute__((weak));
extern "C" void omp_set_num_threads(int) __attribute__((weak));

// How the pool behaves when other processes hold cores (docs/tensors.md,
// "The thread pool on a busy machine"):
//
// - Chunks are claimed, not assigned. A parallel region is split into chunks
//   (up to kChunksPerThread per thread, a function of the thread count only,
//   so results never depend on the load); the caller and the workers take
//   them from one atomic counter. A worker that has not started yet (asleep,
//   or descheduled by a busy neighbour) leaves its share to the caller, which
//   only ever waits for chunks a worker is actually running. A loop that
//   asks for ChunkAffinity::kSameThread (an optimizer's update: its state is
//   the same memory every step) gives each thread a home share instead, one
//   contiguous range of the chunks, claimed first and in order; then the
//   thread claims what is left of the others'. Region after region a thread
//   updates the same part of the state, which stays in its core's cache.
// - Spinning is bounded: workers poll for the next region for NABLA_SPIN_US
//   (100 us by default; kernels of a step follow each other within
//   microseconds and a futex wake-up costs tens), then sleep on a futex.
// - Under load the pool backs off to the calling thread alone. A worker that
//   sees a gap in its own spin loop (it was preempted), a claimed chunk that
//   finishes long after the caller ran out of chunks (longer than the
//   caller's own share took), regions in a row that no awake worker came to
//   help with, or an OpenMP call spent off the CPU (ContentionProbe) mean there
//   are fewer free cores than threads: then every region runs inline for a
//   while (10 ms, doubling up to 1 s while each probe afterwards meets
//   contention again) and the workers sleep, so nabla stops competing with
//   the neighbour, its own DataLoader workers or itself.
//   NABLA_ADAPTIVE_THREADS=0 turns this off.
//
// oneDNN's OpenMP threads (Debian's libdnnl is built with the OpenMP runtime,
// so oneDNN's threadpool interface, which would let it run on this pool, is
// not available) are kept out of the way by the kernels: they call oneDNN
// single-threaded on slices run on this pool (omp_single.h), and with one
// OpenMP thread while the pool backs off (conv_onednn.cpp).

namespace nabla {
namespace {

using Clock = std::chrono::steady_clock;

int64_t now_ns() { return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count(); }

int env_int(const char* name, int fallback) {
  if (const char* env = std::getenv(name)) {
    char* end = nullptr;
    long v = std::strtol(env, &end, 10);
    if (end != env && v >= 0) return static_cast<int>(v);
  }
  return fallback;
}

int default_threads() {
  int n = env_int("NABLA_NUM_THREADS", 0);
  return n > 0 ? n : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// A region is cut into at most this many chunks per thread: a late worker's
// share is then taken in pieces by whoever is free, at ~50 ns per claim.
constexpr int kChunksPerThread = 4;
// A spin loop whose clock jumps by this much was preempted: another runnable
// thread wanted this core. Timer interrupts take microseconds; a scheduler
// slice taken by another task is a millisecond or more.
constexpr int64_t kPreemptedNs = 250'000;
// A caller waiting this long on a chunk some worker claimed: that worker was
// descheduled in the middle of it.
constexpr int64_t kStalledNs = 250'000;
// Regions in a row that the caller ran entirely alone: the workers were
// late every time.
constexpr int kMissesToBackOff = 8;
constexpr int64_t kBackoffMinNs = 10'000'000, kBackoffMaxNs = 1'000'000'000;

// The load detector: while backing off, regions run on the caller alone.
class Backoff {
 public:
  Backoff() : enabled_(env_int("NABLA_ADAPTIVE_THREADS", 1) != 0) {}

  bool active() {
    if (!active_.load(std::memory_order_relaxed)) return false;  // the quiet fast path: one load
    int64_t now = now_ns();
    if (now < until_.load(std::memory_order_relaxed)) return true;
    std::lock_guard<std::mutex> lock(mu_);  // not to clear a back-off contention() just started
    if (now < until_.load()) return true;
    active_.store(false);
    return false;
  }

  // Contention seen from `since` (when the slow wait or call began) to `now`;
  // `cause` is the counter in ParallelBackoffCauses that saw it.
  void contention(int64_t since, int64_t now, int64_t ParallelBackoffCauses::*cause) {
    if (!enabled_) return;
    std::lock_guard<std::mutex> lock(mu_);
    int64_t until = until_.load();
    if (now < until) return;
    ++(causes_.*cause);
    // Contention again right after the last back-off ended: the probe failed,
    // so wait longer before the next one; otherwise start short.
    length_ = since - until < 2 * length_ ? std::min(2 * length_, kBackoffMaxNs) : kBackoffMinNs;
    until_.store(now + length_);
    active_.store(true);
    ++events_;
  }

  int64_t events() {
    std::lock_guard<std::mutex> lock(mu_);
    return events_;
  }

  ParallelBackoffCauses causes() {
    std::lock_guard<std::mutex> lock(mu_);
    return causes_;
  }

 private:
  const bool enabled_;
  std::atomic<bool> active_{false};
  std::atomic<int64_t> until_{0};
  std::mutex mu_;
  int64_t length_ = kBackoffMinNs;  // guarded by mu_
  int64_t events_ = 0;              // guarded by mu_
  ParallelBackoffCauses causes_;    // guarded by mu_
};

Backoff& backoff() {
  static Backoff* b = new Backoff();  // leaked: workers may use it until exit
  return *b;
}

thread_local bool t_in_parallel = false;

// Marks the current thread as running a chunk, so nested regions run inline.
struct InParallel {
  InParallel() { t_in_parallel = true; }
  ~InParallel() { t_in_parallel = false; }
};

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

class ThreadPool {
 public:
  explicit ThreadPool(int n) : spin_ns_(int64_t{env_int("NABLA_SPIN_US", 100)} * 1000) { resize(n); }
  ~ThreadPool() { stop(); }

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  void resize(int n) {
    stop();
    stopping_.store(false);
    ranges_ = std::make_unique<Range[]>(n);
    // The regions so far, as seen here: a worker thread that starts after
    // the next region was published still joins it.
    const uint64_t seen = generation(word_.load(std::memory_order_acquire));
    for (int i = 1; i < n; ++i) workers_.emplace_back([this, i, seen] { loop(i, seen); });
  }

  // Runs fn(chunk) for every chunk in [0, chunks) on the pool and returns when
  // all have run; the first exception is rethrown here (chunks not started
  // after it are skipped).
  using Task = void (*)(const void* context, int chunk);
  void run(int chunks, Task task, const void* context, ChunkAffinity affinity) {
    task_.store(task, std::memory_order_relaxed);
    context_.store(context, std::memory_order_relaxed);
    done_.store(0, std::memory_order_relaxed);
    failed_.store(false, std::memory_order_relaxed);
    error_ = nullptr;
    const uint64_t gen = generation(word_.load(std::memory_order_relaxed)) + 1;
    const bool homes = affinity == ChunkAffinity::kSameThread;
    if (homes) {
      // Thread t's home: the t-th of size() equal parts of the chunks.
      const int threads = size();
      for (int t = 0; t < threads; ++t)
        ranges_[t].word.store(pack_range(gen, chunks * t / threads, chunks * (t + 1) / threads),
                              std::memory_order_relaxed);
    }
    // The shared counter (empty for homes): the caller claims chunk 0 as it
    // publishes, so a worker never takes it first and a region of one chunk
    // per thread (a matmul's or a convolution's slices) keeps the caller on
    // slice 0, and that slice's data in its cache, from one op to the next.
    word_.store(pack(gen, homes, chunks, homes ? chunks : 1), std::memory_order_seq_cst);
    bool woke = sleepers_.load(std::memory_order_seq_cst) > 0;
    if (woke) {
      wake_.fetch_add(1, std::memory_order_seq_cst);
      wake_.notify_all();
    }
    int64_t start = now_ns();
    int ran = 0;
    if (!homes) run_chunk(0), ++ran;
    for (int c; (c = claim(gen, 0)) >= 0; ++ran) run_chunk(c);
    wait_done(chunks, now_ns() - start);
    // Regions after regions that no worker got to help with although one was
    // awake, spinning for work: the workers are not getting a core. A region
    // that had to wake a worker does not count: a futex wake-up takes tens of
    // microseconds, longer than many regions, even on an idle machine, and
    // after a back-off the workers are all asleep, so counting those made
    // every probe fail and the back-off grow to its 1 s limit on a quiet
    // machine (bench/README.md).
    if (ran < chunks) misses_ = 0;
    else if (!woke) ++misses_;
    if (misses_ >= kMissesToBackOff) {
      misses_ = 0;
      int64_t now = now_ns();
      backoff().contention(now, now, &ParallelBackoffCauses::missed);
    }
    if (error_) std::rethrow_exception(error_);
  }

 private:
  // word_ = generation (32 bits) | homes (1) | chunks (15) | next chunk of
  // the shared counter (16): one word, so a claim (a CAS on it) can only
  // succeed for the region that is published now, never for an older one.
  // A region with homes (ChunkAffinity::kSameThread) leaves the shared
  // counter empty (next = chunks) and claims from ranges_.
  static uint64_t pack(uint64_t gen, bool homes, int chunks, int next) {
    return gen << 32 | uint64_t{homes} << 31 | static_cast<uint64_t>(chunks) << 16 | static_cast<uint64_t>(next);
  }
  static uint64_t generation(uint64_t w) { return w >> 32; }
  static bool homes_of(uint64_t w) { return (w >> 31 & 1) != 0; }
  // Whether a word (of word_ or of a Range) has an unclaimed chunk.
  static bool claimable(uint64_t w) { return (w & 0xffff) < (w >> 16 & 0x7fff); }

  // A thread's home range of a region with homes, packed like word_ (the
  // homes bit clear; "chunks" is the range's end). A cache line each: the
  // owner's claims do not slow the others'.
  struct alignas(64) Range {
    std::atomic<uint64_t> word{0};
  };
  static uint64_t pack_range(uint64_t gen, int begin, int end) { return pack(gen, false, end, begin); }

  // The next chunk of `word` (word_ or a range) for region `gen`, or -1.
  static int claim_from(std::atomic<uint64_t>& word, uint64_t gen) {
    uint64_t w = word.load(std::memory_order_acquire);
    while (generation(w) == gen && claimable(w))
      if (word.compare_exchange_weak(w, w + 1, std::memory_order_acq_rel, std::memory_order_acquire))
        return static_cast<int>(w & 0xffff);
    return -1;
  }

  // The next chunk of region `gen` for thread `self` (0 = the caller): from
  // the shared counter, or, in a region with homes, from its own range
  // first, then from the others' (the next thread's first); -1 when all are
  // claimed (or the region is over).
  int claim(uint64_t gen, int self) {
    const uint64_t w = word_.load(std::memory_order_acquire);
    if (generation(w) != gen) return -1;
    if (!homes_of(w)) return claim_from(word_, gen);
    const int threads = size();
    for (int i = 0; i < threads; ++i)
      if (int c = claim_from(ranges_[(self + i) % threads].word, gen); c >= 0) return c;
    return -1;
  }

  // task_ stays valid while a claimed chunk has not been counted in done_:
  // run() does not return before.
  void run_chunk(int c) {
    if (!failed_.load(std::memory_order_relaxed)) {
      try {
        InParallel in;
        task_.load(std::memory_order_relaxed)(context_.load(std::memory_order_relaxed), c);
      } catch (...) {
        std::lock_guard<std::mutex> g(error_mu_);
        if (!error_) error_ = std::current_exception();
        failed_.store(true, std::memory_order_relaxed);
      }
    }
    last_done_.store(now_ns(), std::memory_order_relaxed);  // published by done_
    done_.fetch_add(1, std::memory_order_seq_cst);
    if (caller_sleeping_.load(std::memory_order_seq_cst)) done_.notify_one();
  }

  // The caller has run or claimed every chunk (taking `worked` ns); it waits
  // for the ones workers are running: spinning briefly, then on a futex.
  void wait_done(int chunks, int64_t worked) {
    if (done_.load(std::memory_order_acquire) == chunks) return;
    int64_t start = now_ns(), deadline = start + spin_ns_;
    while (true) {
      for (int i = 0; i < 64; ++i) {
        if (done_.load(std::memory_order_acquire) == chunks) return;
        cpu_relax();
      }
      if (now_ns() >= deadline) break;
    }
    caller_sleeping_.store(true, std::memory_order_seq_cst);
    for (int d; (d = done_.load(std::memory_order_seq_cst)) != chunks;) done_.wait(d, std::memory_order_seq_cst);
    caller_sleeping_.store(false, std::memory_order_relaxed);
    // When the last chunk finished, not when this thread woke up: a futex
    // wake-up of the caller took up to 3.5 ms on this project's VM, which
    // was counted as the worker's.
    const int64_t end = std::max(start, last_done_.load(std::memory_order_relaxed));
    // Waiting longer than the caller's own share took: the worker was not
    // running (descheduled for a scheduler slice, milliseconds). A worker
    // merely slower on its chunk is not a stall: one vCPU of that VM often
    // ran a conv2d batch slice 30-60% slower than the other, both claimed at
    // once, and counting a quarter of the caller's time as a stall made a
    // quiet CNN step back off to one thread (14 ms against 7).
    if (end - start > std::max(kStalledNs, worked)) backoff().contention(start, end, &ParallelBackoffCauses::stalled);
  }

  // Waits for a region newer than generation `seen` (true) or for stop()
  // (false): spins until spin_ns_ after `idle_since`, watching its own clock
  // for preemption, then sleeps.
  bool wait_for_work(uint64_t seen, int64_t idle_since) {
    int64_t last = now_ns(), deadline = idle_since + spin_ns_;
    while (true) {
      for (int i = 0; i < 64; ++i) {
        if (stopping_.load(std::memory_order_relaxed)) return false;
        if (generation(word_.load(std::memory_order_acquire)) != seen) return true;
        cpu_relax();
      }
      int64_t now = now_ns();
      if (now - last > kPreemptedNs) backoff().contention(last, now, &ParallelBackoffCauses::preempted);
      if (now >= deadline) break;
      last = now;
    }
    uint32_t e = wake_.load(std::memory_order_seq_cst);
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    while (!stopping_.load(std::memory_order_seq_cst) && generation(word_.load(std::memory_order_seq_cst)) == seen) {
      wake_.wait(e, std::memory_order_seq_cst);
      e = wake_.load(std::memory_order_seq_cst);
    }
    sleepers_.fetch_sub(1, std::memory_order_seq_cst);
    return !stopping_.load();
  }

  // Worker `self` (1 and up; the caller is 0), started when the newest
  // region was generation `seen`.
  void loop(int self, uint64_t seen) {
    int64_t idle_since = now_ns();
    while (wait_for_work(seen, idle_since)) {
      const uint64_t w = word_.load(std::memory_order_acquire);
      seen = generation(w);
      // A region whose chunks the caller took before this worker came does
      // not restart the spin: spinning longer after such regions cost the
      // CNN step 4% at 2 threads (bench/README.md, stop 35), and restarting
      // it only after running chunks cost the raw-autograd step 3%; this is
      // what the pool did before ranges, when a worker woke for claimable
      // chunks only.
      if (!homes_of(w) && !claimable(w)) continue;
      for (int c; (c = claim(seen, self)) >= 0;) run_chunk(c);
      idle_since = now_ns();
    }
  }

  void stop() {
    stopping_.store(true, std::memory_order_seq_cst);
    wake_.fetch_add(1, std::memory_order_seq_cst);
    wake_.notify_all();
    for (auto& t : workers_) t.join();
    workers_.clear();
  }

  const int64_t spin_ns_;
  int misses_ = 0;  // regions in a row the caller ran alone with workers awake (only the caller touches it)
  std::vector<std::thread> workers_;
  std::atomic<uint64_t> word_{0};  // pack(generation, homes, chunks, next)
  std::atomic<Task> task_{nullptr};
  std::atomic<const void*> context_{nullptr};
  std::atomic<int64_t> last_done_{0};  // when a chunk last finished (now_ns)
  std::atomic<int> done_{0};  // chunks of the current task that have run
  std::atomic<bool> failed_{false}, caller_sleeping_{false}, stopping_{false};
  std::atomic<uint32_t> wake_{0};  // futex the idle workers sleep on
  std::atomic<int> sleepers_{0};
  std::mutex error_mu_;
  std::exception_ptr error_;  // guarded by error_mu_ while chunks run
  std::unique_ptr<Range[]> ranges_;  // one per thread, the caller's first
};

std::atomic<int> g_num_threads{0};
std::mutex g_pool_mu;  // one parallel region (or resize) at a time

ThreadPool& pool() {
  static ThreadPool* p = new ThreadPool(get_num_threads());  // leaked: lives until exit
  return *p;
}

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

int64_t parallel_backoff_events() { return backoff().events(); }
ParallelBackoffCauses parallel_backoff_causes() { return backoff().causes(); }
bool parallel_backing_off() { return backoff().active(); }

namespace {
int64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}
}  // namespace

ContentionProbe::ContentionProbe() : wall_ns_(now_ns()), cpu_ns_(thread_cpu_ns()) {}

ContentionProbe::~ContentionProbe() {
  int64_t now = now_ns(), wall = now - wall_ns_, off_cpu = wall - (thread_cpu_ns() - cpu_ns_);
  // Off the CPU for most of the call: the team's barrier waited on members
  // that had no core (a passive wait also sleeps, but not for most of a
  // balanced region).
  if (off_cpu > std::max(kStalledNs, wall / 2)) backoff().contention(wall_ns_, now, &ParallelBackoffCauses::off_cpu);
}

void parallel_for_pool(int64_t begin, int64_t end, int64_t grain, const std::function<void(int64_t, int64_t)>& fn,
                       ChunkAffinity affinity) {
  int64_t n = end - begin;
  if (n <= 0) return;
  int threads = get_num_threads();
  if (threads <= 1 || n < grain || t_in_parallel) {
    fn(begin, end);
    return;
  }
  // The chunks depend on the thread count alone, never on who runs them, so
  // results are the same quiet or loaded.
  int64_t chunks = std::min<int64_t>({int64_t{kChunksPerThread} * threads, (n + grain - 1) / std::max<int64_t>(grain, 1), 0x7fff});
  chunks = std::max<int64_t>(chunks, 1);
  int64_t step = (n + chunks - 1) / chunks;
  struct Range {
    int64_t begin, end, step;
    const std::function<void(int64_t, int64_t)>* fn;
  } range{begin, end, step, &fn};
  auto chunk = [](const void* context, int c) {
    const Range& r = *static_cast<const Range*>(context);
    int64_t b = r.begin + c * r.step, e = std::min(r.end, b + r.step);
    if (b < e) (*r.fn)(b, e);
  };
  // Another thread using the pool (a DataLoader worker running kernels) or a
  // machine without free cores: run here rather than wait.
  std::unique_lock<std::mutex> lock(g_pool_mu, std::try_to_lock);
  if (chunks <= 1 || !lock.owns_lock() || backoff().active() || pool().size() <= 1) {
    InParallel in;
    for (int c = 0; c < chunks; ++c) chunk(&range, c);
    return;
  }
  pool().run(static_cast<int>(chunks), chunk, &range, affinity);
}

}  // namespace nabla

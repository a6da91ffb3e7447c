// nabla's thread pool (nabla/core/parallel.cpp) under oversubscription: more
// chunks than threads, more threads than free cores, nested and concurrent
// regions, exceptions, and a worker that stalls in the middle of its chunk.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "nabla/core/parallel.h"
#include "nabla/core/parallel_stats.h"

namespace nabla {
namespace {

// Restores the thread count a test changed.
struct ThreadsGuard {
  int saved = get_num_threads();
  ~ThreadsGuard() { set_num_threads(saved); }
};

// Every index of [0, n) visited exactly once, by chunks that tile the range.
void expect_each_index_once(int64_t n, int64_t grain, ChunkAffinity affinity = ChunkAffinity::kAnyThread) {
  std::vector<int> visits(n, 0);
  std::atomic<int> calls{0};
  parallel_for(
      0, n, grain,
      [&](int64_t b, int64_t e) {
        ++calls;
        for (int64_t i = b; i < e; ++i) ++visits[i];
      },
      affinity);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(visits[i], 1) << "index " << i << " of " << n;
  if (get_num_threads() > 1 && n >= 2 * grain) EXPECT_GT(calls.load(), 1);
}

TEST(ThreadPool, ExactWithMoreChunksAndThreadsThanCores) {
  ThreadsGuard guard;
  // Three threads on a machine that may have fewer free cores, and ranges
  // that split into more chunks than threads (and one that does not divide).
  for (int threads : {3, 2}) {
    set_num_threads(threads);  // also: resizing a pool that has run
    for (ChunkAffinity affinity : {ChunkAffinity::kAnyThread, ChunkAffinity::kSameThread})
      for (int64_t n : {int64_t{1}, int64_t{1000}, int64_t{2500}, int64_t{100003}})  // 2500: 3 chunks, 3 threads
        expect_each_index_once(n, 1000, affinity);
  }
}

// ChunkAffinity::kSameThread: 8 chunks on 2 threads, the caller's share is
// chunks 0-3 and the worker's 4-7. Each thread's first chunk waits (up to a
// second) until the other has started one, so both claim while every chunk
// is free: the worker must take chunk 4, its own, not the caller's next
// (chunk 1, which a shared counter would give it).
// Runs `region` (2 threads, the pool not backing off) until it returns true,
// that is until a round had the worker take part and was checked, 5 times at
// most; skips the test when none did (the worker never came: a busy machine).
template <class Region>
void until_the_worker_joins(Region region) {
  ThreadsGuard guard;
  set_num_threads(2);
  for (int round = 0; round < 5; ++round) {
    while (parallel_backing_off()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (region()) return;
  }
  GTEST_SKIP() << "the worker joined none of 5 regions (a busy machine)";
}

TEST(ThreadPool, SameThreadChunksStartAtEachThreadsOwnShare) {
  using Clock = std::chrono::steady_clock;
  const auto caller = std::this_thread::get_id();
  until_the_worker_joins([&] {
    std::atomic<bool> started[2] = {false, false};  // [0]: the caller, [1]: the worker
    std::atomic<int> first[2] = {-1, -1};
    const auto deadline = Clock::now() + std::chrono::seconds(1);
    parallel_for(
        0, 8, 1,
        [&](int64_t b, int64_t) {
          const int self = std::this_thread::get_id() == caller ? 0 : 1;
          int none = -1;
          if (first[self].compare_exchange_strong(none, static_cast<int>(b))) {
            started[self] = true;
            while (!started[1 - self] && Clock::now() < deadline) std::this_thread::yield();
          }
        },
        ChunkAffinity::kSameThread);
    if (first[1] < 0) return false;  // the worker never came: the caller ran every chunk
    EXPECT_EQ(first[0], 0);
    EXPECT_EQ(first[1], 4);
    return true;
  });
}

// A thread stuck in its first chunk (descheduled, say): the others take the
// rest of its share, so the region waits only for the chunk it is running.
TEST(ThreadPool, SameThreadChunksOfAStuckThreadAreTakenByTheOthers) {
  using Clock = std::chrono::steady_clock;
  const auto caller = std::this_thread::get_id();
  until_the_worker_joins([&] {
    std::atomic<int> ran_on_caller[8];
    for (auto& r : ran_on_caller) r = -1;
    std::atomic<int> rest_of_its_share{0};  // chunks 5-7 done
    std::atomic<bool> worker_started{false};
    const auto deadline = Clock::now() + std::chrono::seconds(1);
    parallel_for(
        0, 8, 1,
        [&](int64_t b, int64_t) {
          const bool on_caller = std::this_thread::get_id() == caller;
          ran_on_caller[b] = on_caller;
          if (!on_caller) worker_started = true;
          if (on_caller && b == 0)  // so that the worker finds its share untouched
            while (!worker_started && Clock::now() < deadline) std::this_thread::yield();
          if (!on_caller && b == 4)
            while (rest_of_its_share < 3 && Clock::now() < deadline) std::this_thread::yield();
          if (b >= 5) ++rest_of_its_share;
        },
        ChunkAffinity::kSameThread);
    for (int c = 0; c < 8; ++c) EXPECT_GE(ran_on_caller[c], 0) << "chunk " << c << " did not run";
    if (ran_on_caller[4]) return false;  // the worker came too late to take its first chunk
    for (int c = 5; c < 8; ++c) EXPECT_EQ(ran_on_caller[c], 1) << "chunk " << c;
    return true;
  });
}

TEST(ThreadPool, NestedRegionsRunInline) {
  ThreadsGuard guard;
  set_num_threads(2);
  std::vector<std::atomic<int>> visits(64 * 512);
  parallel_for(0, 64, 1, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r)
      parallel_for(0, 512, 16, [&](int64_t ib, int64_t ie) {
        for (int64_t i = ib; i < ie; ++i) ++visits[r * 512 + i];
      });
  });
  for (auto& v : visits) ASSERT_EQ(v.load(), 1);
}

TEST(ThreadPool, ExceptionPropagatesAndThePoolStillSplits) {
  ThreadsGuard guard;
  set_num_threads(2);
  for (int64_t bad : {int64_t{0}, int64_t{99999}}) {  // in the caller's first chunk, and in the last chunk
    EXPECT_THROW(parallel_for(0, 100000, 1000,
                              [&](int64_t b, int64_t e) {
                                if (b <= bad && bad < e) throw std::runtime_error("chunk failed");
                              }),
                 std::runtime_error);
  }
  // A throw must not leave the thread marked as inside a region (which would
  // run every later region as one inline call).
  expect_each_index_once(100000, 1000);
}

TEST(ThreadPool, ConcurrentCallersBothFinish) {
  ThreadsGuard guard;
  set_num_threads(2);
  // A second thread running kernels (as a DataLoader worker does) while the
  // pool is busy runs its region itself instead of queueing.
  std::vector<int> a(200000, 0), b(200000, 0);
  auto fill = [](std::vector<int>& v) {
    for (int round = 0; round < 20; ++round)
      parallel_for(0, static_cast<int64_t>(v.size()), 1000, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) ++v[i];
      });
  };
  std::thread other(fill, std::ref(b));
  fill(a);
  other.join();
  for (int64_t i = 0; i < 200000; ++i) ASSERT_TRUE(a[i] == 20 && b[i] == 20) << i;
}

TEST(ThreadPool, StalledWorkerFinishesAndMakesThePoolBackOff) {
  using Clock = std::chrono::steady_clock;
  ThreadsGuard guard;
  set_num_threads(2);
  const auto caller = std::this_thread::get_id();
  std::atomic<bool> worker_ran{false};
  std::vector<int> visits(8000, 0);
  int rounds = 0;
  for (; rounds < 20 && !worker_ran; ++rounds) {
    while (parallel_backing_off()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    int64_t before = parallel_backoff_events();
    Clock::time_point start = Clock::now(), caller_done = start, worker_done = start;
    parallel_for(0, 8000, 1000, [&](int64_t b, int64_t e) {
      if (std::this_thread::get_id() != caller && !worker_ran.exchange(true)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));  // a worker descheduled mid-chunk
        for (int64_t i = b; i < e; ++i) ++visits[i];
        worker_done = Clock::now();
        return;
      }
      // 50 us of work per chunk: time for a waking worker to claim one.
      auto end = Clock::now() + std::chrono::microseconds(50);
      while (Clock::now() < end) {
      }
      for (int64_t i = b; i < e; ++i) ++visits[i];
      if (std::this_thread::get_id() == caller) caller_done = Clock::now();
    });
    if (!worker_ran) continue;  // (++rounds still runs)
    // The caller waited on a chunk a worker had claimed, much longer than its
    // own share took: a busy machine. (Under heavy load the caller itself may
    // have been descheduled as long; then there is nothing to check. The
    // margins over the pool's 250 us and a quarter of the caller's share
    // cover the caller being descheduled between its chunks and its wait.)
    auto waited = worker_done - caller_done, worked = caller_done - start;
    if (waited > std::chrono::milliseconds(2) && waited > worked)
      EXPECT_GT(parallel_backoff_events(), before)
          << "waited " << std::chrono::duration<double, std::micro>(waited).count() << " us, worked "
          << std::chrono::duration<double, std::micro>(worked).count() << " us, round " << rounds;
  }
  for (int v : visits) ASSERT_EQ(v, rounds);  // every index once per round
}

TEST(ThreadPool, AWorkerSlowerOnItsChunkIsNotAStall) {
  // Two chunks claimed at once, the worker's taking 1.5x the caller's: the
  // caller waits half its own share for it. That is a slower core (or a
  // colder cache), not a worker without one: no back-off. (It used to be
  // one: a wait over a quarter of the caller's share counted as a stall,
  // and the caller's own wake-up from its futex counted as waiting.)
  using Clock = std::chrono::steady_clock;
  ThreadsGuard guard;
  set_num_threads(2);
  const auto caller = std::this_thread::get_id();
  auto spin_for = [](std::chrono::microseconds d) {
    for (auto end = Clock::now() + d; Clock::now() < end;) {
    }
  };
  int checked = 0;
  for (int round = 0; round < 20 && checked < 3; ++round) {
    while (parallel_backing_off()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    // Wake the worker: regions until it runs a chunk of one, a shorter one
    // than the caller's (so that the caller never waits, and sleeps, for
    // it), so that it is spinning for work when the region below starts.
    std::atomic<bool> woke{false};
    for (int w = 0; w < 20 && !woke; ++w)
      parallel_for(0, 2, 1, [&](int64_t, int64_t) {
        const bool is_caller = std::this_thread::get_id() == caller;
        if (!is_caller) woke = true;
        spin_for(std::chrono::microseconds(is_caller ? 1000 : 50));
      });
    const int64_t before = parallel_backoff_causes().stalled;
    Clock::time_point caller_done, worker_done;
    bool worker_ran = false;
    parallel_for(0, 2, 1, [&](int64_t, int64_t) {
      const bool is_caller = std::this_thread::get_id() == caller;
      spin_for(std::chrono::microseconds(is_caller ? 2000 : 3000));
      (is_caller ? caller_done : worker_done) = Clock::now();
      if (!is_caller) worker_ran = true;
    });
    if (!worker_ran) continue;  // the caller ran both chunks
    // Only where the worker started with the caller and kept its core (a
    // busy machine may have delayed either): the wait is then about 1 ms.
    const auto waited = worker_done - caller_done;
    if (waited < std::chrono::microseconds(600) || waited > std::chrono::microseconds(1500)) continue;
    ++checked;
    EXPECT_EQ(parallel_backoff_causes().stalled, before)
        << "waited " << std::chrono::duration<double, std::micro>(waited).count() << " us";
  }
}

TEST(ThreadPool, RegionsThatWakeASleepingWorkerAreNotMisses) {
  // Short regions after a pause longer than the workers spin: each wakes a
  // sleeping worker, which arrives after the caller has run every chunk. That
  // is the cost of a futex wake-up, not a busy machine: the pool must not
  // count these as missed regions and back off (it did, and on a quiet
  // machine each probe after a back-off then failed the same way).
  ThreadsGuard guard;
  set_num_threads(2);
  int64_t before = parallel_backoff_causes().missed;
  std::atomic<int64_t> sum{0};
  for (int region = 0; region < 40; ++region) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // > NABLA_SPIN_US: the worker sleeps
    parallel_for(0, 8, 1, [&](int64_t b, int64_t e) { sum += e - b; });
  }
  EXPECT_EQ(sum.load(), 40 * 8);
  EXPECT_EQ(parallel_backoff_causes().missed, before);
}

TEST(ThreadPool, ContentionProbeSeesACallSpentOffTheCpu) {
  // oneDNN's OpenMP calls are timed with a ContentionProbe: a call during
  // which the calling thread was mostly not running (here: asleep) is
  // reported as a busy machine, and the pool (and oneDNN's thread count with
  // it) backs off.
  while (parallel_backing_off()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  int64_t before = parallel_backoff_events();
  {
    ContentionProbe probe;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_GT(parallel_backoff_events(), before);
  EXPECT_GT(parallel_backoff_causes().off_cpu, 0);
}

}  // namespace
}  // namespace nabla

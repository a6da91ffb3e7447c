// vcpu_round_trip - how long one cache line takes to go from CPU 0 to CPU 1
// and back: two threads pinned to the two CPUs pass a counter through one
// atomic. On this project's 2-vCPU VM the figure switches, within seconds,
// between ~80 ns (the vCPUs on nearby physical cores) and ~330 ns (far
// apart), and the seed MLP's 2-thread step time follows it: 0.17-0.20 ms
// against 0.24-0.28 ms (bench/README.md, stop 35). bench/loaded_bench.sh
// prints it per rep, so a run's 2-thread figures can be read against it.
//
// Usage: vcpu_round_trip [--trips N] [--cpus A,B]      (default 100000, 0,1)
// Prints: round_trip_ns median=.. p10=.. p90=.. (medians of 1000-trip batches)
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

bool pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  long trips = 100000;
  int cpu_a = 0, cpu_b = 1;
  for (int i = 1; i < argc; i += 2) {
    const bool has_value = i + 1 < argc;  // every option takes one
    if (has_value && !std::strcmp(argv[i], "--trips")) trips = std::max(1000L, std::atol(argv[i + 1]));
    else if (has_value && !std::strcmp(argv[i], "--cpus") && std::sscanf(argv[i + 1], "%d,%d", &cpu_a, &cpu_b) == 2) continue;
    else {
      std::fprintf(stderr, "usage: %s [--trips N] [--cpus A,B]\n", argv[0]);
      return 2;
    }
  }
  constexpr long kBatch = 1000;
  trips = trips / kBatch * kBatch;
  alignas(64) std::atomic<long> line{0};
  std::atomic<bool> pinned{true};
  // The echo: waits for each odd value and answers with the next even one.
  std::thread echo([&] {
    pinned = pin_to(cpu_b) && pinned;
    for (long i = 0; i < trips; ++i) {
      while (line.load(std::memory_order_acquire) != 2 * i + 1) {
      }
      line.store(2 * i + 2, std::memory_order_release);
    }
  });
  pinned = pin_to(cpu_a) && pinned;
  std::vector<double> batch_ns;
  auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < trips; ++i) {
    line.store(2 * i + 1, std::memory_order_release);
    while (line.load(std::memory_order_acquire) != 2 * i + 2) {
    }
    if ((i + 1) % kBatch == 0) {
      auto now = std::chrono::steady_clock::now();
      batch_ns.push_back(std::chrono::duration<double, std::nano>(now - start).count() / kBatch);
      start = now;
    }
  }
  echo.join();
  if (!pinned) {
    std::fprintf(stderr, "vcpu_round_trip: could not pin threads to CPUs %d and %d\n", cpu_a, cpu_b);
    return 1;
  }
  std::sort(batch_ns.begin(), batch_ns.end());
  const size_t n = batch_ns.size();
  std::printf("round_trip_ns median=%.0f p10=%.0f p90=%.0f\n", batch_ns[n / 2], batch_ns[n / 10], batch_ns[n * 9 / 10]);
  return 0;
}

// See machine_peaks.h. The kernels are compiled for their ISA with target
// attributes (not the build's -march), and picked at run time.
#include "machine_peaks.h"

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>

namespace nabla_bench {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Keeps a result alive so that the loops are not optimized away.
volatile float sink;

// 16 independent accumulators, named (an array of them ends up on the stack):
// an FMA has a latency of 4 cycles and two pipes issue one each per cycle, so
// 8 chains keep both busy; 16 leave margin and still fit the registers with
// the two operands. acc = acc * a + b with a just below 1 converges to
// b / (1 - a): no overflow, no denormals. Without -ffast-math the compiler
// must do every FMA (no reassociation), so no barrier is needed.
#define NABLA_BENCH_16(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
constexpr int kChains = 16;

__attribute__((target("avx512f"))) double fma_loop_avx512(int64_t iterations) {
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-6f);
#define DECLARE(i) __m512 acc##i = _mm512_set1_ps(1.0f + i);
#define STEP(i) acc##i = _mm512_fmadd_ps(acc##i, a, b);
#define ADD(i) sum = _mm512_add_ps(sum, acc##i);
  NABLA_BENCH_16(DECLARE)
  for (int64_t i = 0; i < iterations; ++i) {
    NABLA_BENCH_16(STEP)
  }
  __m512 sum = _mm512_setzero_ps();
  NABLA_BENCH_16(ADD)
  float out[16];  // not _mm512_reduce_add_ps: GCC 12's header trips -Wuninitialized
  _mm512_storeu_ps(out, sum);
  sink = out[0] + out[15];
  return double(iterations) * kChains * 16 * 2;  // FLOP
#undef DECLARE
#undef STEP
#undef ADD
}

__attribute__((target("avx2,fma"))) double fma_loop_avx2(int64_t iterations) {
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-6f);
#define DECLARE(i) __m256 acc##i = _mm256_set1_ps(1.0f + i);
#define STEP(i) acc##i = _mm256_fmadd_ps(acc##i, a, b);
#define ADD(i) sum = _mm256_add_ps(sum, acc##i);
  NABLA_BENCH_16(DECLARE)
  for (int64_t i = 0; i < iterations; ++i) {
    NABLA_BENCH_16(STEP)
  }
  __m256 sum = _mm256_setzero_ps();
  NABLA_BENCH_16(ADD)
  float out[8];
  _mm256_storeu_ps(out, sum);
  sink = out[0] + out[7];
  return double(iterations) * kChains * 8 * 2;
#undef DECLARE
#undef STEP
#undef ADD
}
#undef NABLA_BENCH_16

struct AlignedFree {
  void operator()(float* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<float[], AlignedFree>;

Buffer make_buffer(int64_t n, float value) {
  const std::size_t bytes = ((std::size_t(n) * sizeof(float) + 63) / 64) * 64;
  Buffer b(static_cast<float*>(std::aligned_alloc(64, bytes)));
  std::fill(b.get(), b.get() + n, value);  // also faults the pages in before timing
  return b;
}

// Adam's memory pattern with cheap arithmetic: p, m, v read and written, g read.
// Cloned for AVX-512 and AVX2 (the bench is not built with -march=native), so
// that at cache-resident sizes the loads, not the instruction width, bound it.
__attribute__((target_clones("avx512f", "avx2", "default"))) void adam_shaped_pass(float* __restrict p, float* __restrict m, float* __restrict v, const float* __restrict g,
                      int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float mi = 0.9f * m[i] + 0.1f * g[i];
    const float vi = 0.999f * v[i] + 0.001f * g[i] * g[i];
    m[i] = mi;
    v[i] = vi;
    p[i] -= 1e-7f * (mi + vi);
  }
}

}  // namespace

FmaPeak measure_fma_peak(int repeats, double ms) {
  FmaPeak peak;
  const bool avx512 = __builtin_cpu_supports("avx512f");
  peak.isa = avx512 ? "avx512f" : "avx2+fma";
  auto loop = avx512 ? fma_loop_avx512 : fma_loop_avx2;
  // Calibrate the iteration count to about `ms` (also warms the clock up).
  int64_t iterations = 1 << 16;
  for (;;) {
    const auto t0 = Clock::now();
    loop(iterations);
    if (seconds_since(t0) * 1e3 > ms / 4) break;
    iterations *= 2;
  }
  iterations *= 4;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = Clock::now();
    const double flop = loop(iterations);
    peak.gflops = std::max(peak.gflops, flop / seconds_since(t0) / 1e9);
  }
  return peak;
}

double measure_adam_stream_gbps(int64_t elements, int repeats) {
  Buffer p = make_buffer(elements, 1.f), m = make_buffer(elements, 0.f), v = make_buffer(elements, 0.f),
         g = make_buffer(elements, 0.5f);
  adam_shaped_pass(p.get(), m.get(), v.get(), g.get(), elements);  // warm-up
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = Clock::now();
    adam_shaped_pass(p.get(), m.get(), v.get(), g.get(), elements);
    best = std::min(best, seconds_since(t0));
  }
  sink = p[elements / 2];
  return double(elements) * 28 / best / 1e9;
}

}  // namespace nabla_bench

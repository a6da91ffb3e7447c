// sgemm_direct_bench — raw SGEMM throughput of the BLAS libraries on this machine, i.e. the
// ceiling a framework's float32 matmul can reach by calling them (or by matching them).
//
// What it measures (wall-clock time, UseRealTime), C[M,N] = A[M,K] * B[K,N], row-major,
// no transpose, alpha=1, beta=0, preallocated buffers (no allocation in the timed loop):
//   openblas_sgemm/MxKxN   cblas_sgemm from Debian's libopenblas0-pthread (0.3.21)
//   onednn_sgemm/MxKxN     dnnl_sgemm from Debian's libdnnl2 (oneDNN 2.6.3)
// Shapes: 64x1000x100, 256x256x256, 1024x1024x1024, 2048x2048x2048.
// Counter GFLOPS = 2*M*N*K / time / 1e9.
//
// Threads: env BENCH_THREADS (default 1).
//   OpenBLAS: Debian's default alternative is the pthread build -> openblas_set_num_threads(n).
//   oneDNN:   Debian's libdnnl.so.2 is built with the OpenMP CPU runtime
//             (dnnl_config.h: DNNL_CPU_RUNTIME == DNNL_RUNTIME_OMP; libdnnl.so.2 links
//             libgomp.so.1, not TBB) and sizes its work by omp_get_max_threads(), so
//             omp_set_num_threads(n) controls it.
#include <benchmark/benchmark.h>
#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>
#include <omp.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

struct Mats {
  std::vector<float> A, B, C;
  Mats(int64_t M, int64_t K, int64_t N) : A(M * K), B(K * N), C(M * N) {
    std::mt19937 rng(42);
    std::normal_distribution<float> d;
    for (auto& v : A) v = d(rng);
    for (auto& v : B) v = d(rng);
  }
};

void set_gflops(benchmark::State& st, int64_t M, int64_t K, int64_t N) {
  st.counters["GFLOPS"] = benchmark::Counter(2.0 * M * N * K * 1e-9,
                                             benchmark::Counter::kIsIterationInvariantRate);
}

void openblas_sgemm(benchmark::State& st, int64_t M, int64_t K, int64_t N) {
  Mats m(M, K, N);
  for (auto _ : st) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, m.A.data(), K,
                m.B.data(), N, 0.0f, m.C.data(), N);
    benchmark::ClobberMemory();
  }
  set_gflops(st, M, K, N);
}

void onednn_sgemm(benchmark::State& st, int64_t M, int64_t K, int64_t N) {
  Mats m(M, K, N);
  for (auto _ : st) {
    if (dnnl_sgemm('N', 'N', M, N, K, 1.0f, m.A.data(), K, m.B.data(), N, 0.0f, m.C.data(), N) !=
        dnnl_success) {
      st.SkipWithError("dnnl_sgemm failed");
      break;
    }
    benchmark::ClobberMemory();
  }
  set_gflops(st, M, K, N);
}

}  // namespace

int main(int argc, char** argv) {
  const char* s = std::getenv("BENCH_THREADS");
  const int threads = s && std::atoi(s) > 0 ? std::atoi(s) : 1;
  openblas_set_num_threads(threads);
  omp_set_num_threads(threads);
  benchmark::AddCustomContext("bench_threads", std::to_string(threads));
  benchmark::AddCustomContext("openblas_config", openblas_get_config());

  const int64_t shapes[][3] = {{64, 1000, 100}, {256, 256, 256}, {1024, 1024, 1024},
                               {2048, 2048, 2048}};
  for (auto [lib, fn] : {std::pair{"openblas_sgemm/", openblas_sgemm},
                         {"onednn_sgemm/", onednn_sgemm}})
    for (auto& sh : shapes) {
      const std::string name = lib + std::to_string(sh[0]) + "x" + std::to_string(sh[1]) + "x" +
                               std::to_string(sh[2]);
      benchmark::RegisterBenchmark(name.c_str(), fn, sh[0], sh[1], sh[2])
          ->UseRealTime()->Unit(benchmark::kMicrosecond);
    }

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// gemm_vs_direct — nabla::mm against OpenBLAS's cblas_sgemm and oneDNN's
// dnnl_sgemm called directly, in one process, alternating the three calls and
// keeping each one's best time. On a shared VM whose speed drifts by +-20%
// between runs, this is the fair way to check "nabla's GEMM is within 5% of
// the faster library" (issue 2); compare.py gives the cross-process view.
// Usage: gemm_vs_direct [threads=1]
#include <cblas.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "nabla/nabla.h"

extern "C" void omp_set_num_threads(int);

template <class F>
double seconds(F&& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char** argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  nabla::set_num_threads(threads);  // also sets OpenBLAS's and oneDNN's (OpenMP) threads
  std::printf("| shape MxKxN | threads | nabla GFLOP/s | OpenBLAS | oneDNN | nabla / best |\n|---|---|---|---|---|---|\n");
  const int64_t shapes[4][3] = {{64, 1000, 100}, {256, 256, 256}, {1024, 1024, 1024}, {2048, 2048, 2048}};
  for (const auto& s : shapes) {
    int64_t M = s[0], K = s[1], N = s[2];
    nabla::manual_seed(0);
    nabla::Tensor a = nabla::randn({M, K}), b = nabla::randn({K, N});
    std::vector<float> c(static_cast<std::size_t>(M * N));
    const float* pa = a.data_ptr<float>();
    const float* pb = b.data_ptr<float>();
    double best[3] = {1e30, 1e30, 1e30};
    int rounds = M >= 1024 ? 8 : 100;
    for (int r = 0; r < rounds; ++r) {
      best[0] = std::min(best[0], seconds([&] { nabla::Tensor out = nabla::mm(a, b); }));
      best[1] = std::min(best[1], seconds([&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, pa, K, pb, N, 0.0f, c.data(), N);
      }));
      best[2] = std::min(best[2], seconds([&] { dnnl_sgemm('N', 'N', M, N, K, 1.0f, pa, K, pb, N, 0.0f, c.data(), N); }));
    }
    double flop = 2.0 * M * N * K * 1e-9;
    double direct = std::max(flop / best[1], flop / best[2]);
    std::printf("| %ldx%ldx%ld | %d | %.1f | %.1f | %.1f | %.2f |\n", M, K, N, threads, flop / best[0],
                flop / best[1], flop / best[2], flop / best[0] / direct);
  }
  return 0;
}

#include "nabla/kernels/cpu/gemm.h"

#include <cblas.h>

#include <limits>
#include <oneapi/dnnl/dnnl.h>

#include "nabla/core/parallel.h"
#include "nabla/kernels/cpu/elementwise.h"
#include "nabla/kernels/cpu/gemm_nt.h"
#include "nabla/kernels/cpu/omp_single.h"

namespace nabla::cpu {
namespace {

// How a [rows, cols] matrix with strides (rs, cs) is passed to BLAS.
struct BlasMatrix {
  bool ok = false;
  bool transposed = false;
  int64_t ld = 0;
};
BlasMatrix as_blas(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  if (cs == 1 && (rs >= std::max<int64_t>(cols, 1) || rows == 1)) return {true, false, std::max<int64_t>(rs, std::max<int64_t>(cols, 1))};
  if (rs == 1 && (cs >= std::max<int64_t>(rows, 1) || cols == 1)) return {true, true, std::max<int64_t>(cs, std::max<int64_t>(rows, 1))};
  return {};
}

void sgemm_call(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                int64_t ldb, float* c, int64_t ldc) {
  // A @ B^T with both rows along k: dot products, no packing (gemm_nt.h).
  if (!ta && tb && sgemm_nt_dot(m, n, k, a, lda, b, ldb, c, ldc)) return;
  dnnl_status_t st = dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
  NABLA_CHECK(st == dnnl_success, "matmul: oneDNN sgemm failed with status ", static_cast<int>(st), " for ", m, "x",
              k, " @ ", k, "x", n);
}

// Products below this many multiply-adds run as one call: a thread hand-off
// costs more than it saves.
constexpr double kSplitMacs = 1 << 20;

// oneDNN's sgemm runs single-threaded on slices of C (rows, or columns when
// C is wider than tall), one slice per nabla thread: OpenMP's own threads
// would spin-wait on the cores nabla's pool needs (see omp_single.h).
void sgemm_threads(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                   int64_t ldb, float* c, int64_t ldc) {
  ScopedOmpThreads single(1);
  bool by_rows = m >= n;
  int64_t extent = by_rows ? m : n;
  int64_t chunks = std::min<int64_t>(get_num_threads(), extent / 16);  // slices of at least 16
  if (chunks <= 1 || static_cast<double>(m) * n * k < kSplitMacs) {
    sgemm_call(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
    return;
  }
  int64_t step = (extent + chunks - 1) / chunks;
  parallel_for(0, chunks, 1, [&](int64_t begin, int64_t end) {
    ScopedOmpThreads worker(1);  // pool threads start with OpenMP's default
    for (int64_t q = begin; q < end; ++q) {
      int64_t lo = q * step, len = std::min(extent, lo + step) - lo;
      if (len <= 0) continue;
      if (by_rows) sgemm_call(ta, tb, len, n, k, ta ? a + lo : a + lo * lda, lda, b, ldb, c + lo * ldc, ldc);
      else sgemm_call(ta, tb, m, len, k, a, lda, tb ? b + lo * ldb : b + lo, ldb, c + lo, ldc);
    }
  });
}

// float32 goes to oneDNN's sgemm, which measured faster than OpenBLAS's at
// every benchmarked shape and thread count (bench/README.md); float64 to
// OpenBLAS (oneDNN has no dgemm).
template <class T>
void gemm_one(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
              T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, float>) {
    sgemm_threads(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
  } else {
    auto TA = ta ? CblasTrans : CblasNoTrans, TB = tb ? CblasTrans : CblasNoTrans;
    cblas_dgemm(CblasRowMajor, TA, TB, (int)m, (int)n, (int)k, 1.0, a, (int)lda, b, (int)ldb, 0.0, c, (int)ldc);
  }
}

}  // namespace

void batched_gemm(const Tensor& a_in, const Tensor& b_in, const Tensor& out) {
  int64_t batch = a_in.sizes()[0], m = a_in.sizes()[1], k = a_in.sizes()[2], n = b_in.sizes()[2];
  // BLAS takes 32-bit sizes and leading dimensions.
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  NABLA_CHECK(m <= kMax && n <= kMax && k <= kMax && a_in.numel() <= kMax * 8 && b_in.numel() <= kMax * 8, "matmul: ",
              m, "x", k, " @ ", k, "x", n, " exceeds the 32-bit sizes BLAS accepts");
  if (!is_floating(out.dtype())) {
    Tensor a = contiguous_input(a_in), b = contiguous_input(b_in);
    visit_dtype(out.dtype(), [&]<class T>() {
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        const T* pa = static_cast<const T*>(a.raw_data());
        const T* pb = static_cast<const T*>(b.raw_data());
        T* pc = static_cast<T*>(out.raw_data());
        for (int64_t s = 0; s < batch; ++s)
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
              T acc = 0;
              for (int64_t p = 0; p < k; ++p) acc += pa[(s * m + i) * k + p] * pb[(s * k + p) * n + j];
              pc[(s * m + i) * n + j] = acc;
            }
      } else {
        fail("matmul: unsupported dtype ", out.dtype());
      }
    });
    return;
  }
  if (m == 0 || n == 0 || batch == 0) return;
  visit_dtype(out.dtype(), [&]<class T>() {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      T* pc = static_cast<T*>(out.raw_data());
      if (k == 0) {
        std::fill(pc, pc + out.numel(), T(0));
        return;
      }
      Tensor a = a_in, b = b_in;
      BlasMatrix ma = as_blas(m, k, a.strides()[1], a.strides()[2]);
      if (!ma.ok) { a = contiguous_input(a); ma = as_blas(m, k, a.strides()[1], a.strides()[2]); }
      BlasMatrix mb = as_blas(k, n, b.strides()[1], b.strides()[2]);
      if (!mb.ok) { b = contiguous_input(b); mb = as_blas(k, n, b.strides()[1], b.strides()[2]); }
      const T* pa = static_cast<const T*>(a.raw_data());
      const T* pb = static_cast<const T*>(b.raw_data());
      get_num_threads();  // makes sure BLAS follows nabla's thread count
      for (int64_t s = 0; s < batch; ++s)
        gemm_one<T>(ma.transposed, mb.transposed, m, n, k, pa + s * a.strides()[0], ma.ld, pb + s * b.strides()[0],
                    mb.ld, pc + s * m * n, n);
    } else {
      fail("matmul: unsupported dtype ", out.dtype());
    }
  });
}

}  // namespace nabla::cpu

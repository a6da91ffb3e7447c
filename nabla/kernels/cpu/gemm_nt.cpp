// The NT float32 product as blocks of 4x4 dot products (gemm_nt.h).
//
// A block keeps 16 accumulators, one per output, each a vector of 16 partial
// sums along k: per 16 values of k it loads 4 rows of A and 4 of B into
// registers (8 loads for 16 FMAs; FMAs with a memory operand ran at half the
// speed on Zen 5) and at the end folds the 16 accumulators into one vector
// of 16 outputs with a transposing tree (45 shuffles and adds, where 16
// separate horizontal sums take ~130). Rows past the matrix's edge repeat its
// last row and are not stored, so edges need no copies; the k tail is a
// masked load. Measured on the seed MLP's 64x1000 @ (100x1000)^T: ~80% of the
// FMA peak against oneDNN's 57%; packing both operands into the blocks'
// order reached 92% in the kernel but its copies cost as much as they saved.
#include "nabla/kernels/cpu/gemm_nt.h"

#include <immintrin.h>

#include <algorithm>

// GCC 12's AVX-512 headers start some intrinsics from _mm512_undefined_ps(),
// which -Wuninitialized reports at every use (a known false positive).
#pragma GCC diagnostic ignored "-Wuninitialized"

// avx512vl: the 128-bit masked stores of a block's rows.
#define NABLA_AVX512 __attribute__((target("avx512f,avx512vl")))

namespace nabla::cpu {
namespace {

// Lane r of the result: the sum of the 16 lanes of v[r].
NABLA_AVX512 inline __m512 sum_each(const __m512* v) {
  __m512 w[8], x[4], y[2];
  for (int i = 0; i < 8; ++i)
    w[i] = _mm512_add_ps(_mm512_unpacklo_ps(v[2 * i], v[2 * i + 1]), _mm512_unpackhi_ps(v[2 * i], v[2 * i + 1]));
  for (int i = 0; i < 4; ++i)
    x[i] = _mm512_add_ps(_mm512_shuffle_ps(w[2 * i], w[2 * i + 1], _MM_SHUFFLE(1, 0, 1, 0)),
                         _mm512_shuffle_ps(w[2 * i], w[2 * i + 1], _MM_SHUFFLE(3, 2, 3, 2)));
  for (int i = 0; i < 2; ++i)
    y[i] = _mm512_add_ps(_mm512_shuffle_f32x4(x[2 * i], x[2 * i + 1], _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm512_shuffle_f32x4(x[2 * i], x[2 * i + 1], _MM_SHUFFLE(3, 1, 3, 1)));
  return _mm512_add_ps(_mm512_shuffle_f32x4(y[0], y[1], _MM_SHUFFLE(2, 0, 2, 0)),
                       _mm512_shuffle_f32x4(y[0], y[1], _MM_SHUFFLE(3, 1, 3, 1)));
}

// C[0..mr, 0..nr] (mr, nr <= 4) from the rows a[0..3] and b[0..3].
NABLA_AVX512 void block4x4(int64_t k, const float* const* a, const float* const* b, float* c, int64_t ldc, int mr,
                           int nr) {
  // Prefetch distance of the streamed rows, in floats (256 bytes ahead).
  constexpr int64_t kAhead = 64;
  __m512 acc[16];
  for (__m512& v : acc) v = _mm512_setzero_ps();
  const float *a0 = a[0], *a1 = a[1], *a2 = a[2], *a3 = a[3], *b0 = b[0], *b1 = b[1], *b2 = b[2], *b3 = b[3];
  int64_t p = 0;
  for (; p + 16 <= k; p += 16) {
    __m512 av[4] = {_mm512_loadu_ps(a0 + p), _mm512_loadu_ps(a1 + p), _mm512_loadu_ps(a2 + p), _mm512_loadu_ps(a3 + p)};
    __m512 bv[4] = {_mm512_loadu_ps(b0 + p), _mm512_loadu_ps(b1 + p), _mm512_loadu_ps(b2 + p), _mm512_loadu_ps(b3 + p)};
    // Prefetches past a row's end are harmless hints (no fault).
    for (const float* r : {a0, a1, a2, a3, b0, b1, b2, b3})
      _mm_prefetch(reinterpret_cast<const char*>(r + p + kAhead), _MM_HINT_T0);
    // Keeps the 8 loads in registers: without it GCC folds B's loads into
    // the FMAs as memory operands (16 loads instead of 4).
    __asm__("" : "+v"(av[0]), "+v"(av[1]), "+v"(av[2]), "+v"(av[3]), "+v"(bv[0]), "+v"(bv[1]), "+v"(bv[2]), "+v"(bv[3]));
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i) acc[i * 4 + j] = _mm512_fmadd_ps(av[i], bv[j], acc[i * 4 + j]);
  }
  if (p < k) {
    __mmask16 tail = static_cast<__mmask16>((1u << (k - p)) - 1);
    __m512 av[4], bv[4];
    for (int i = 0; i < 4; ++i) av[i] = _mm512_maskz_loadu_ps(tail, a[i] + p);
    for (int j = 0; j < 4; ++j) bv[j] = _mm512_maskz_loadu_ps(tail, b[j] + p);
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i) acc[i * 4 + j] = _mm512_fmadd_ps(av[i], bv[j], acc[i * 4 + j]);
  }
  // Lane 4i + j holds C[i, j]: row i is the i-th 128-bit quarter.
  __m512 sums = sum_each(acc);
  __mmask8 cols = static_cast<__mmask8>((1u << nr) - 1);
  _mm_mask_storeu_ps(c, cols, _mm512_castps512_ps128(sums));
  if (mr > 1) _mm_mask_storeu_ps(c + ldc, cols, _mm512_extractf32x4_ps(sums, 1));
  if (mr > 2) _mm_mask_storeu_ps(c + 2 * ldc, cols, _mm512_extractf32x4_ps(sums, 2));
  if (mr > 3) _mm_mask_storeu_ps(c + 3 * ldc, cols, _mm512_extractf32x4_ps(sums, 3));
}

// Blocks of 4 columns outer (B's 4 rows stay in L1 while A's rows stream).
NABLA_AVX512 void nt_dot(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
                         float* c, int64_t ldc) {
  for (int64_t j = 0; j < n; j += 4) {
    const float* brows[4];
    for (int64_t q = 0; q < 4; ++q) brows[q] = b + std::min(j + q, n - 1) * ldb;
    for (int64_t i = 0; i < m; i += 4) {
      const float* arows[4];
      for (int64_t q = 0; q < 4; ++q) arows[q] = a + std::min(i + q, m - 1) * lda;
      block4x4(k, arows, brows, c + i * ldc + j, ldc, static_cast<int>(std::min<int64_t>(4, m - i)),
               static_cast<int>(std::min<int64_t>(4, n - j)));
    }
  }
}

bool cpu_has_avx512() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
  return has;
}

}  // namespace

bool sgemm_nt_dot_applies(int64_t m, int64_t n, int64_t k) {
  // Where it measured faster than oneDNN's sgemm at 1 thread (m 8..128, n
  // 10..128, k 64..1024, AMD Zen 5): a block's fold costs as much as ~3
  // steps along k, so short k loses (k = 64: 0.4-0.8x oneDNN's speed); k
  // from 256 wins while n <= 100 (0.9-3x; oneDNN is slowest at n = 100 and
  // at k = 512 or 1024); at n = 128 only k = 512 and 1024 win; narrow
  // products (n <= 16) win from k = 128.
  //
  // Longer k (a CNN's flattened features: the Fashion-MNIST CNN's 64x3136 @
  // (128x3136)^T) measured faster too (a standalone sweep on this project's
  // AMD EPYC (Zen 4), m 16/64/128, n 64/100/128, k 1024-8192, warm and with
  // the operands evicted from cache): 1.2-9x oneDNN's speed up to k = 4096,
  // 64x128 @ k = 3136 1.32-1.34x (0.50 against 0.68 ms), except when m and n
  // are both past 64 and 100 (128x128: 0.92-1.04x), which stay on oneDNN.
  if (m < 1 || m > 128 || n < 1 || n > 128 || k > 4096 || !cpu_has_avx512()) return false;
  if (k > 1024) return m <= 64 || n <= 100;
  if (k % 512 == 0) return true;
  if (n <= 16 && m <= 64) return k >= 128;
  if (n <= 100) return k >= (m <= 64 ? 256 : 512);
  return false;
}

bool sgemm_nt_dot(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
                  int64_t ldc) {
  if (!sgemm_nt_dot_applies(m, n, k)) return false;
  nt_dot(m, n, k, a, lda, b, ldb, c, ldc);
  return true;
}

}  // namespace nabla::cpu

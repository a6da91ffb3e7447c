// AVX-512 max-pool rows (pool_avx512.h).
#include "nabla/kernels/cpu/pool_avx512.h"

#include <immintrin.h>

#include <algorithm>

// GCC 12's AVX-512 headers start some intrinsics from _mm512_undefined_ps(),
// which -Wuninitialized reports at every use (a known false positive).
#pragma GCC diagnostic ignored "-Wuninitialized"

#define NABLA_AVX512 __attribute__((target("avx512f,avx512vl")))
#define NABLA_AVX512BW __attribute__((target("avx512f,avx512vl,avx512bw")))

namespace nabla::cpu {

bool pool_avx512_available() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
  return has;
}

bool pool_bf16_avx512_available() {
  static const bool has = pool_avx512_available() && __builtin_cpu_supports("avx512bw");
  return has;
}

namespace {

// The first n bits set (n in [0, 16]).
inline __mmask16 first_bits(int64_t n) { return static_cast<__mmask16>((1u << n) - 1u); }

}  // namespace

// The maxima of sixteen 2x2 windows whose taps, in order top-left,
// top-right, bottom-left, bottom-right, are t0..t3; `at_lo`/`at_hi`: each
// window's top-left position in the plane, turned into the winner's. A
// later tap wins if larger or a NaN. Which tap won is two mask bits: a
// bottom tap (k2 or k3 last took) adds W, a right one (k3, or k1 not
// overtaken by k2) adds 1.
struct Max16 {
  __m512 best;
  __m512i at_lo, at_hi;
};
NABLA_AVX512 inline Max16 max4_taps(__m512 t0, __m512 t1, __m512 t2, __m512 t3, __m512i at_lo, __m512i at_hi,
                                    int64_t W) {
  __m512 best = t0;
  // v > best (false against a NaN best) or v is a NaN: the last NaN wins.
  const __mmask16 k1 = _mm512_cmp_ps_mask(t1, best, _CMP_GT_OQ) | _mm512_cmp_ps_mask(t1, t1, _CMP_UNORD_Q);
  best = _mm512_mask_mov_ps(best, k1, t1);
  const __mmask16 k2 = _mm512_cmp_ps_mask(t2, best, _CMP_GT_OQ) | _mm512_cmp_ps_mask(t2, t2, _CMP_UNORD_Q);
  best = _mm512_mask_mov_ps(best, k2, t2);
  const __mmask16 k3 = _mm512_cmp_ps_mask(t3, best, _CMP_GT_OQ) | _mm512_cmp_ps_mask(t3, t3, _CMP_UNORD_Q);
  best = _mm512_mask_mov_ps(best, k3, t3);
  const __mmask16 bottom = k2 | k3, right = k3 | (k1 & ~k2);
  const __m512i w = _mm512_set1_epi64(W), one = _mm512_set1_epi64(1);
  at_lo = _mm512_mask_add_epi64(at_lo, static_cast<__mmask8>(bottom), at_lo, w);
  at_hi = _mm512_mask_add_epi64(at_hi, static_cast<__mmask8>(bottom >> 8), at_hi, w);
  at_lo = _mm512_mask_add_epi64(at_lo, static_cast<__mmask8>(right), at_lo, one);
  at_hi = _mm512_mask_add_epi64(at_hi, static_cast<__mmask8>(right >> 8), at_hi, one);
  return {best, at_lo, at_hi};
}

NABLA_AVX512 inline void store_indices(const Max16& m, __mmask16 out, int64_t* ib) {
  _mm512_mask_storeu_epi64(ib, static_cast<__mmask8>(out), m.at_lo);
  _mm512_mask_storeu_epi64(ib + 8, static_cast<__mmask8>(out >> 8), m.at_hi);
}

// Sixteen float32 2x2 windows (fewer where `out` says so), their top row's
// two columns in lanes even[k] and even[k] + 1 of (a0, a1) (as
// _mm512_permutex2var_ps indexes them), their bottom row's in (b0, b1) the
// same way; at_lo/at_hi as max4_taps takes them.
NABLA_AVX512 inline void window_max16(__m512 a0, __m512 a1, __m512 b0, __m512 b1, __m512i even, __m512i at_lo,
                                      __m512i at_hi, int64_t W, __mmask16 out, float* vb, int64_t* ib) {
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  const Max16 m = max4_taps(_mm512_permutex2var_ps(a0, even, a1), _mm512_permutex2var_ps(a0, odd, a1),
                            _mm512_permutex2var_ps(b0, even, b1), _mm512_permutex2var_ps(b0, odd, b1), at_lo, at_hi, W);
  _mm512_mask_storeu_ps(vb, out, m.best);
  store_indices(m, out, ib);
}

NABLA_AVX512 void max2x2_row_avx512(const float* plane, int64_t i0, int64_t W, int64_t n, float* vb, int64_t* ib) {
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i step_lo = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
  const __m512i step_hi = _mm512_setr_epi64(16, 18, 20, 22, 24, 26, 28, 30);
  const float* r0 = plane + i0;
  const float* r1 = r0 + W;
  for (int64_t j = 0; j < n; j += 16) {
    const int64_t m = std::min<int64_t>(16, n - j);  // windows in this step
    // The 2m inputs of each row in two registers; masked-off lanes are not
    // read (no fault past the plane's end).
    const __mmask16 lo = first_bits(std::min<int64_t>(2 * m, 16)), hi = first_bits(std::max<int64_t>(2 * m - 16, 0));
    const __m512i at = _mm512_set1_epi64(i0 + 2 * j);
    window_max16(_mm512_maskz_loadu_ps(lo, r0 + 2 * j), _mm512_maskz_loadu_ps(hi, r0 + 2 * j + 16),
                 _mm512_maskz_loadu_ps(lo, r1 + 2 * j), _mm512_maskz_loadu_ps(hi, r1 + 2 * j + 16), even,
                 _mm512_add_epi64(at, step_lo), _mm512_add_epi64(at, step_hi), W, first_bits(m), vb + j, ib + j);
  }
}

NABLA_AVX512 void max2x2_plane_avx512(const float* plane, int64_t W, int64_t stride_h, int64_t out_h, int64_t n,
                                      float* vb, int64_t* ib) {
  if (n > 8 || n < 1) {
    for (int64_t oh = 0; oh < out_h; ++oh) max2x2_row_avx512(plane, oh * stride_h * W, W, n, vb + oh * n, ib + oh * n);
    return;
  }
  // Two output rows per step, the first in lanes [0, n), the second in
  // [n, 2n): row oh's inputs in a0/b0, row oh + 1's in a1/b1.
  alignas(64) int32_t even_at[16];
  alignas(64) int64_t step[16];
  for (int64_t k = 0; k < 16; ++k) {
    even_at[k] = static_cast<int32_t>(k < n ? 2 * k : std::min<int64_t>(16 + 2 * (k - n), 30));
    step[k] = k < n ? 2 * k : stride_h * W + 2 * (k - n);
  }
  const __m512i even = _mm512_load_si512(even_at);
  const __m512i step_lo = _mm512_load_si512(step), step_hi = _mm512_load_si512(step + 8);
  const __mmask16 in = first_bits(2 * n), out = first_bits(2 * n);
  int64_t oh = 0;
  for (; oh + 1 < out_h; oh += 2) {
    const float* r0 = plane + oh * stride_h * W;      // row oh's top row
    const float* s0 = r0 + stride_h * W;              // row oh + 1's
    const __m512i at = _mm512_set1_epi64(oh * stride_h * W);
    window_max16(_mm512_maskz_loadu_ps(in, r0), _mm512_maskz_loadu_ps(in, s0), _mm512_maskz_loadu_ps(in, r0 + W),
                 _mm512_maskz_loadu_ps(in, s0 + W), even, _mm512_add_epi64(at, step_lo), _mm512_add_epi64(at, step_hi),
                 W, out, vb + oh * n, ib + oh * n);
  }
  if (oh < out_h) max2x2_row_avx512(plane, oh * stride_h * W, W, n, vb + oh * n, ib + oh * n);
}

// bfloat16. A bfloat16 is the top half of a float32, and a window's two
// columns are one 32-bit word (the left one in the low half: little
// endian), so sixteen windows' pairs of a row are one 16-lane load, with no
// permute: the left values are the words shifted up, the right ones the
// words with their low halves cleared. The comparisons run on those
// float32s, exactly as the float32 path's on the widened tensor.
NABLA_AVX512 inline __m512 bf16_left(__m512i pairs) { return _mm512_castsi512_ps(_mm512_slli_epi32(pairs, 16)); }
NABLA_AVX512 inline __m512 bf16_right(__m512i pairs) {
  return _mm512_castsi512_ps(_mm512_and_si512(pairs, _mm512_set1_epi32(static_cast<int32_t>(0xffff0000u))));
}

// Sixteen windows (lanes `out`), their top and bottom rows' pairs in
// `top`/`bottom`. The maxima are widened bfloat16s, so their top halves are
// the results; a NaN gets its quiet bit (0x40), as the float32 path's
// rounding back (BFloat16::from_float) gives it.
NABLA_AVX512 inline void window_max16_bf16(__m512i top, __m512i bottom, __m512i at_lo, __m512i at_hi, int64_t W,
                                           __mmask16 out, uint16_t* vb, int64_t* ib) {
  const Max16 m = max4_taps(bf16_left(top), bf16_right(top), bf16_left(bottom), bf16_right(bottom), at_lo, at_hi, W);
  __m512i bits = _mm512_srli_epi32(_mm512_castps_si512(m.best), 16);
  bits = _mm512_mask_or_epi32(bits, _mm512_cmp_ps_mask(m.best, m.best, _CMP_UNORD_Q), bits, _mm512_set1_epi32(0x40));
  _mm512_mask_cvtepi32_storeu_epi16(vb, out, bits);
  store_indices(m, out, ib);
}

NABLA_AVX512 void max2x2_row_bf16_avx512(const uint16_t* plane, int64_t i0, int64_t W, int64_t n, uint16_t* vb,
                                           int64_t* ib) {
  const __m512i step_lo = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
  const __m512i step_hi = _mm512_setr_epi64(16, 18, 20, 22, 24, 26, 28, 30);
  const uint16_t* r0 = plane + i0;
  const uint16_t* r1 = r0 + W;
  for (int64_t j = 0; j < n; j += 16) {
    const __mmask16 out = first_bits(std::min<int64_t>(16, n - j));  // windows in this step: their words
    const __m512i at = _mm512_set1_epi64(i0 + 2 * j);
    window_max16_bf16(_mm512_maskz_loadu_epi32(out, r0 + 2 * j), _mm512_maskz_loadu_epi32(out, r1 + 2 * j),
                      _mm512_add_epi64(at, step_lo), _mm512_add_epi64(at, step_hi), W, out, vb + j, ib + j);
  }
}

// The n words at a in lanes [0, n), the n at b in [n, 2n) (join: 0 .. n - 1,
// 16 .. 16 + n - 1).
NABLA_AVX512 inline __m512i joined_pairs(const uint16_t* a, const uint16_t* b, __mmask16 n_words, __m512i join) {
  return _mm512_permutex2var_epi32(_mm512_maskz_loadu_epi32(n_words, a), join, _mm512_maskz_loadu_epi32(n_words, b));
}

NABLA_AVX512 void max2x2_plane_bf16_avx512(const uint16_t* plane, int64_t W, int64_t stride_h, int64_t out_h,
                                             int64_t n, uint16_t* vb, int64_t* ib) {
  if (n > 8 || n < 1) {
    for (int64_t oh = 0; oh < out_h; ++oh)
      max2x2_row_bf16_avx512(plane, oh * stride_h * W, W, n, vb + oh * n, ib + oh * n);
    return;
  }
  // Two output rows per step: row oh's words in lanes [0, n), row oh + 1's
  // in [n, 2n), joined from two loads by one permute.
  alignas(64) int32_t join_at[16];
  alignas(64) int64_t step[16];
  for (int64_t k = 0; k < 16; ++k) {
    join_at[k] = static_cast<int32_t>(k < n ? k : 16 + (k - n));
    step[k] = k < n ? 2 * k : stride_h * W + 2 * (k - n);
  }
  const __m512i join = _mm512_load_si512(join_at);
  const __m512i step_lo = _mm512_load_si512(step), step_hi = _mm512_load_si512(step + 8);
  const __mmask16 in = first_bits(n), out = first_bits(2 * n);
  int64_t oh = 0;
  for (; oh + 1 < out_h; oh += 2) {
    const uint16_t* r0 = plane + oh * stride_h * W;  // row oh's top row
    const uint16_t* s0 = r0 + stride_h * W;          // row oh + 1's
    const __m512i at = _mm512_set1_epi64(oh * stride_h * W);
    window_max16_bf16(joined_pairs(r0, s0, in, join), joined_pairs(r0 + W, s0 + W, in, join),
                      _mm512_add_epi64(at, step_lo), _mm512_add_epi64(at, step_hi), W, out, vb + oh * n, ib + oh * n);
  }
  if (oh < out_h) max2x2_row_bf16_avx512(plane, oh * stride_h * W, W, n, vb + oh * n, ib + oh * n);
}

// Sixteen windows' gradients (lanes `out` of v) to their 2x2 blocks, whose
// top-left positions are at_lo/at_hi; `top`/`bottom` get the two rows' pairs
// from the lanes pairs[2k] (left) and pairs[2k + 1] (right) as
// _mm512_permutex2var_ps(left, pairs, right) picks them. Returns the lanes
// whose index lies in its block.
struct Unpooled {
  __m512 t[4];  // top-left, top-right, bottom-left, bottom-right
  __mmask16 inside;
};
// rel_lo/rel_hi: each window's index minus its block's top-left position.
// Narrowed to int32 with saturation (an index far outside its block stays
// far outside: W < 2^30, checked by the caller), so the four compares run
// on one register of 16 lanes.
NABLA_AVX512 inline Unpooled unpool16(__m512 v, __m512i rel_lo, __m512i rel_hi, int64_t W) {
  const __m512i rel = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtsepi64_epi32(rel_lo)),
                                         _mm512_cvtsepi64_epi32(rel_hi), 1);
  const int32_t w = static_cast<int32_t>(W);
  const int32_t offsets[4] = {0, 1, w, w + 1};
  Unpooled u;
  u.inside = 0;
  for (int k = 0; k < 4; ++k) {
    const __mmask16 at = _mm512_cmpeq_epi32_mask(rel, _mm512_set1_epi32(offsets[k]));
    u.t[k] = _mm512_maskz_mov_ps(at, v);
    u.inside |= at;
  }
  return u;
}

NABLA_AVX512 bool unpool2x2_plane_avx512(const float* gy, const int64_t* idx, float* gx, int64_t W, int64_t out_h,
                                         int64_t n) {
  const __m512 zero = _mm512_setzero_ps();
  if (n > 8 || n < 1) {
    const __m512i pairs_lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const __m512i pairs_hi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    const __m512i step_lo = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
    const __m512i step_hi = _mm512_setr_epi64(16, 18, 20, 22, 24, 26, 28, 30);
    for (int64_t oh = 0; oh < out_h; ++oh) {
      float* o0 = gx + 2 * oh * W;
      float* o1 = o0 + W;
      for (int64_t j = 0; j < n; j += 16) {
        const int64_t m = std::min<int64_t>(16, n - j);
        const __mmask16 out = first_bits(m);
        const int64_t p = oh * n + j;
        // 0 + g, as the scatter into zeros computes it (-0 lands as +0).
        const __m512 v = _mm512_add_ps(zero, _mm512_maskz_loadu_ps(out, gy + p));
        const __m512i at = _mm512_set1_epi64(2 * oh * W + 2 * j);
        const Unpooled u = unpool16(
            v, _mm512_sub_epi64(_mm512_maskz_loadu_epi64(static_cast<__mmask8>(out), idx + p), _mm512_add_epi64(at, step_lo)),
            _mm512_sub_epi64(_mm512_maskz_loadu_epi64(static_cast<__mmask8>(out >> 8), idx + p + 8),
                             _mm512_add_epi64(at, step_hi)),
            W);
        if ((u.inside & out) != out) return false;
        const __mmask16 lo = first_bits(std::min<int64_t>(2 * m, 16)), hi = first_bits(std::max<int64_t>(2 * m - 16, 0));
        _mm512_mask_storeu_ps(o0 + 2 * j, lo, _mm512_permutex2var_ps(u.t[0], pairs_lo, u.t[1]));
        _mm512_mask_storeu_ps(o0 + 2 * j + 16, hi, _mm512_permutex2var_ps(u.t[0], pairs_hi, u.t[1]));
        _mm512_mask_storeu_ps(o1 + 2 * j, lo, _mm512_permutex2var_ps(u.t[2], pairs_lo, u.t[3]));
        _mm512_mask_storeu_ps(o1 + 2 * j + 16, hi, _mm512_permutex2var_ps(u.t[2], pairs_hi, u.t[3]));
      }
    }
    return true;
  }
  // Narrow rows, two output rows per step: row oh in lanes [0, n), row
  // oh + 1 in [n, 2n); each block row takes its lanes' pairs.
  alignas(64) int32_t first_row[16], second_row[16];
  alignas(64) int64_t step[16];
  for (int64_t k = 0; k < 16; ++k) {
    const int64_t lane = std::min<int64_t>(k / 2, n - 1);
    first_row[k] = static_cast<int32_t>(lane + (k % 2 ? 16 : 0));
    second_row[k] = static_cast<int32_t>(std::min<int64_t>(n + lane, 15) + (k % 2 ? 16 : 0));
    step[k] = k < n ? 2 * k : 2 * W + 2 * (k - n);
  }
  const __m512i pairs0 = _mm512_load_si512(first_row), pairs1 = _mm512_load_si512(second_row);
  const __m512i step_lo = _mm512_load_si512(step), step_hi = _mm512_load_si512(step + 8);
  const __mmask16 rows = first_bits(2 * n);
  int64_t oh = 0;
  for (; oh + 1 < out_h; oh += 2) {
    const int64_t p = oh * n;
    const __m512 v = _mm512_add_ps(zero, _mm512_maskz_loadu_ps(rows, gy + p));
    const __m512i at = _mm512_set1_epi64(2 * oh * W);
    const Unpooled u = unpool16(
        v, _mm512_sub_epi64(_mm512_maskz_loadu_epi64(static_cast<__mmask8>(rows), idx + p), _mm512_add_epi64(at, step_lo)),
        _mm512_sub_epi64(_mm512_maskz_loadu_epi64(static_cast<__mmask8>(rows >> 8), idx + p + 8),
                         _mm512_add_epi64(at, step_hi)),
        W);
    if ((u.inside & rows) != rows) return false;
    float* o = gx + 2 * oh * W;  // block rows 2oh .. 2oh + 3
    _mm512_mask_storeu_ps(o, rows, _mm512_permutex2var_ps(u.t[0], pairs0, u.t[1]));
    _mm512_mask_storeu_ps(o + W, rows, _mm512_permutex2var_ps(u.t[2], pairs0, u.t[3]));
    _mm512_mask_storeu_ps(o + 2 * W, rows, _mm512_permutex2var_ps(u.t[0], pairs1, u.t[1]));
    _mm512_mask_storeu_ps(o + 3 * W, rows, _mm512_permutex2var_ps(u.t[2], pairs1, u.t[3]));
  }
  if (oh < out_h) {  // the last row alone: its lanes [0, n)
    const int64_t p = oh * n;
    const __mmask16 row = first_bits(n);
    const __m512 v = _mm512_add_ps(zero, _mm512_maskz_loadu_ps(row, gy + p));
    const __m512i at = _mm512_set1_epi64(2 * oh * W);
    const Unpooled u = unpool16(
        v, _mm512_sub_epi64(_mm512_maskz_loadu_epi64(static_cast<__mmask8>(row), idx + p), _mm512_add_epi64(at, step_lo)),
        _mm512_setzero_si512(), W);
    if ((u.inside & row) != row) return false;
    float* o = gx + 2 * oh * W;
    _mm512_mask_storeu_ps(o, rows, _mm512_permutex2var_ps(u.t[0], pairs0, u.t[1]));
    _mm512_mask_storeu_ps(o + W, rows, _mm512_permutex2var_ps(u.t[2], pairs0, u.t[3]));
  }
  return true;
}

// 0 + g of the bfloat16 gradients gy[0, 16) (lanes `m`) as float32s: what
// the float32 path's scatter into zeros computes (-0 lands as +0, a NaN
// gets its quiet bit); their top halves are exact bfloat16s.
NABLA_AVX512BW inline __m512 bf16_grads(__mmask16 m, const uint16_t* gy) {
  const __m512i wide = _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, gy)), 16);
  return _mm512_add_ps(_mm512_setzero_ps(), _mm512_castsi512_ps(wide));
}
// A block row's words from its left and right values (float32s whose low
// halves are 0): the left one's top half in the word's low half.
NABLA_AVX512 inline __m512i bf16_words(__m512 left, __m512 right) {
  return _mm512_or_si512(_mm512_srli_epi32(_mm512_castps_si512(left), 16), _mm512_castps_si512(right));
}

// Sixteen windows (lanes `lanes`): gradients gy[0, 16), indices idx[0, 16),
// their blocks' top-left positions at_lo/at_hi. Their block rows' words, and
// whether every index lies in its block.
struct BlockWords {
  __m512i top, bottom;
  bool inside;
};
NABLA_AVX512BW inline BlockWords unpool16_bf16(const uint16_t* gy, const int64_t* idx, __mmask16 lanes, __m512i at_lo,
                                               __m512i at_hi, int64_t W) {
  const Unpooled u = unpool16(
      bf16_grads(lanes, gy),
      _mm512_sub_epi64(_mm512_maskz_loadu_epi64(static_cast<__mmask8>(lanes), idx), at_lo),
      _mm512_sub_epi64(_mm512_maskz_loadu_epi64(static_cast<__mmask8>(lanes >> 8), idx + 8), at_hi), W);
  return {bf16_words(u.t[0], u.t[1]), bf16_words(u.t[2], u.t[3]), (u.inside & lanes) == lanes};
}

NABLA_AVX512BW bool unpool2x2_plane_bf16_avx512(const uint16_t* gy, const int64_t* idx, uint16_t* gx, int64_t W,
                                                int64_t out_h, int64_t n) {
  const __m512i step_lo = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
  const __m512i step_hi = _mm512_setr_epi64(16, 18, 20, 22, 24, 26, 28, 30);
  BlockWords b;
  if (n > 8 || n < 1) {
    for (int64_t oh = 0; oh < out_h; ++oh) {
      uint16_t* o0 = gx + 2 * oh * W;
      for (int64_t j = 0; j < n; j += 16) {
        const __mmask16 out = first_bits(std::min<int64_t>(16, n - j));
        const int64_t p = oh * n + j;
        const __m512i at = _mm512_set1_epi64(2 * oh * W + 2 * j);
        b = unpool16_bf16(gy + p, idx + p, out, _mm512_add_epi64(at, step_lo), _mm512_add_epi64(at, step_hi), W);
        if (!b.inside) return false;
        _mm512_mask_storeu_epi32(o0 + 2 * j, out, b.top);
        _mm512_mask_storeu_epi32(o0 + W + 2 * j, out, b.bottom);
      }
    }
    return true;
  }
  // Narrow rows, two output rows per step (row oh in lanes [0, n), oh + 1
  // in [n, 2n)); the second row's words are moved down to lanes [0, n).
  alignas(64) int32_t down_at[16];
  alignas(64) int64_t step[16];
  for (int64_t k = 0; k < 16; ++k) {
    down_at[k] = static_cast<int32_t>(std::min<int64_t>(k + n, 15));
    step[k] = k < n ? 2 * k : 2 * W + 2 * (k - n);
  }
  const __m512i down = _mm512_load_si512(down_at);
  const __m512i lo = _mm512_load_si512(step), hi = _mm512_load_si512(step + 8);
  const __mmask16 row = first_bits(n), rows = first_bits(2 * n);
  int64_t oh = 0;
  for (; oh + 1 < out_h; oh += 2) {
    const __m512i at = _mm512_set1_epi64(2 * oh * W);
    b = unpool16_bf16(gy + oh * n, idx + oh * n, rows, _mm512_add_epi64(at, lo), _mm512_add_epi64(at, hi), W);
    if (!b.inside) return false;
    uint16_t* o = gx + 2 * oh * W;  // block rows 2oh .. 2oh + 3
    _mm512_mask_storeu_epi32(o, row, b.top);
    _mm512_mask_storeu_epi32(o + W, row, b.bottom);
    _mm512_mask_storeu_epi32(o + 2 * W, row, _mm512_permutexvar_epi32(down, b.top));
    _mm512_mask_storeu_epi32(o + 3 * W, row, _mm512_permutexvar_epi32(down, b.bottom));
  }
  if (oh < out_h) {  // the last row alone: its lanes [0, n)
    const __m512i at = _mm512_set1_epi64(2 * oh * W);
    b = unpool16_bf16(gy + oh * n, idx + oh * n, row, _mm512_add_epi64(at, lo), _mm512_add_epi64(at, hi), W);
    if (!b.inside) return false;
    _mm512_mask_storeu_epi32(gx + 2 * oh * W, row, b.top);
    _mm512_mask_storeu_epi32(gx + (2 * oh + 1) * W, row, b.bottom);
  }
  return true;
}

}  // namespace nabla::cpu

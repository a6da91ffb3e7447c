// Philox4x32-10 on sixteen counters per vector with AVX-512 (core/philox_blocks.h),
// two vectors in flight. The 32x32->64 products come from _mm512_mul_epu32,
// which multiplies the even 32-bit lanes; the odd lanes go through a second
// multiply after a shift. The blocks come out as four word vectors (word k of
// every block) and are transposed to the block-major layout Philox::blocks
// promises.
#include <immintrin.h>

#include <cstring>

#include "nabla/core/philox_blocks.h"

// GCC 12's AVX-512 headers start some intrinsics from _mm512_undefined_ps(),
// which -Wuninitialized reports at every use (a known false positive).
#pragma GCC diagnostic ignored "-Wuninitialized"

#define NABLA_AVX512 __attribute__((target("avx512f")))

namespace nabla::detail {

bool philox_avx512_available() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}

namespace {

constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u, kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;

// hi and lo 32 bits of a[k] * m for each of the sixteen lanes.
NABLA_AVX512 inline void mul_hi_lo(__m512i a, __m512i m, __m512i& hi, __m512i& lo) {
  const __m512i even = _mm512_mul_epu32(a, m);                        // lanes 0, 2, ...: 64-bit products
  const __m512i odd = _mm512_mul_epu32(_mm512_srli_epi64(a, 32), m);  // lanes 1, 3, ...
  hi = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(even, 32), odd);
  lo = _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
}

// The 32-bit halves of the sixteen 64-bit counters base + 0, ..., base + 15
// (wrapping past 2^64 as Philox::at's offset + n does).
NABLA_AVX512 inline void counters16(uint64_t base, __m512i& lo, __m512i& hi) {
  const __m512i steps = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
  const __m512i a = _mm512_add_epi64(_mm512_set1_epi64(static_cast<long long>(base)), steps);
  const __m512i b = _mm512_add_epi64(a, _mm512_set1_epi64(8));
  lo = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi64_epi32(a)), _mm512_cvtepi64_epi32(b), 1);
  hi = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi64_epi32(_mm512_srli_epi64(a, 32))),
                          _mm512_cvtepi64_epi32(_mm512_srli_epi64(b, 32)), 1);
}

// One Philox round on sixteen counters (words c0..c3).
NABLA_AVX512 inline void round16(__m512i& c0, __m512i& c1, __m512i& c2, __m512i& c3, __m512i k0, __m512i k1) {
  const __m512i m0 = _mm512_set1_epi32(static_cast<int>(kM0)), m1 = _mm512_set1_epi32(static_cast<int>(kM1));
  __m512i hi0, lo0, hi1, lo1;
  mul_hi_lo(c0, m0, hi0, lo0);
  mul_hi_lo(c2, m1, hi1, lo1);
  c0 = _mm512_ternarylogic_epi32(hi1, c1, k0, 0x96);  // three-way xor
  c1 = lo1;
  c2 = _mm512_ternarylogic_epi32(hi0, c3, k1, 0x96);
  c3 = lo0;
}

// Word-major (c_k holds word k of blocks 0..15) to block-major out[0, 64):
// within each 128-bit lane L, r_j holds block 4L + j; then the 4x4 lanes transpose.
NABLA_AVX512 inline void store16(__m512i c0, __m512i c1, __m512i c2, __m512i c3, uint32_t* out) {
  const __m512i a = _mm512_unpacklo_epi32(c0, c1), b = _mm512_unpackhi_epi32(c0, c1);
  const __m512i c = _mm512_unpacklo_epi32(c2, c3), d = _mm512_unpackhi_epi32(c2, c3);
  const __m512i r0 = _mm512_unpacklo_epi64(a, c), r1 = _mm512_unpackhi_epi64(a, c);
  const __m512i r2 = _mm512_unpacklo_epi64(b, d), r3 = _mm512_unpackhi_epi64(b, d);
  const __m512i t0 = _mm512_shuffle_i32x4(r0, r1, 0x44), t1 = _mm512_shuffle_i32x4(r2, r3, 0x44);
  const __m512i t2 = _mm512_shuffle_i32x4(r0, r1, 0xEE), t3 = _mm512_shuffle_i32x4(r2, r3, 0xEE);
  _mm512_storeu_si512(out, _mm512_shuffle_i32x4(t0, t1, 0x88));
  _mm512_storeu_si512(out + 16, _mm512_shuffle_i32x4(t0, t1, 0xDD));
  _mm512_storeu_si512(out + 32, _mm512_shuffle_i32x4(t2, t3, 0x88));
  _mm512_storeu_si512(out + 48, _mm512_shuffle_i32x4(t2, t3, 0xDD));
}

// Thirty-two blocks, counters base + 0..31, to out[0, 128): two sets of
// sixteen whose rounds interleave (each round waits on the previous
// multiply; the other set fills that wait).
NABLA_AVX512 inline void blocks32(uint64_t base, const uint32_t (&keys)[10][2], uint32_t* out) {
  __m512i a0, a1, a2 = _mm512_setzero_si512(), a3 = _mm512_setzero_si512();
  __m512i b0, b1, b2 = _mm512_setzero_si512(), b3 = _mm512_setzero_si512();
  counters16(base, a0, a1);
  counters16(base + 16, b0, b1);
  for (int round = 0; round < 10; ++round) {
    const __m512i k0 = _mm512_set1_epi32(static_cast<int>(keys[round][0]));
    const __m512i k1 = _mm512_set1_epi32(static_cast<int>(keys[round][1]));
    round16(a0, a1, a2, a3, k0, k1);
    round16(b0, b1, b2, b3, k0, k1);
  }
  store16(a0, a1, a2, a3, out);
  store16(b0, b1, b2, b3, out + 64);
}

// Sixteen blocks for counters base + 0..15, written block-major to out[0, 64).
NABLA_AVX512 inline void blocks16(uint64_t base, const uint32_t (&keys)[10][2], uint32_t* out) {
  __m512i c0, c1, c2 = _mm512_setzero_si512(), c3 = _mm512_setzero_si512();
  counters16(base, c0, c1);
  for (int round = 0; round < 10; ++round) {
    round16(c0, c1, c2, c3, _mm512_set1_epi32(static_cast<int>(keys[round][0])),
            _mm512_set1_epi32(static_cast<int>(keys[round][1])));
  }
  store16(c0, c1, c2, c3, out);
}

}  // namespace

NABLA_AVX512 void philox_blocks_avx512(uint64_t seed, uint64_t offset, uint64_t first, int64_t count,
                                       uint32_t* out) {
  uint32_t keys[10][2];
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (auto& k : keys) {
    k[0] = k0;
    k[1] = k1;
    k0 += kW0;
    k1 += kW1;
  }
  uint64_t base = offset + first;
  int64_t j = 0;
  for (; j + 32 <= count; j += 32, base += 32) blocks32(base, keys, out + 4 * j);
  for (; j + 16 <= count; j += 16, base += 16) blocks16(base, keys, out + 4 * j);
  if (j < count) {  // the last few: a whole vector's worth, of which the first count - j are kept
    alignas(64) uint32_t tail[64];
    blocks16(base, keys, tail);
    std::memcpy(out + 4 * j, tail, static_cast<std::size_t>(count - j) * 4 * sizeof(uint32_t));
  }
}

}  // namespace nabla::detail

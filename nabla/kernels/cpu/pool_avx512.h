// The 2x2 max-pool kernels of pool.cpp for float32 with AVX-512. Forward:
// sixteen windows at a time, the even and odd columns of the two input rows
// split apart with one permute each, the indices kept as int64 vectors
// (GCC's own vectorization of the scalar row, stride-2 loads and int64
// selects under float compares, ran 2-2.5x slower). Backward: the blocks of
// non-overlapping windows written whole, sixteen windows at a time, instead
// of a scalar scatter. bfloat16 has the same kernels, comparing in float32.
#pragma once
#include <cstdint>

namespace nabla::cpu {

// Whether the CPU has the AVX-512 subsets these kernels use (avx512f, avx512vl).
bool pool_avx512_available();
// The same for the bfloat16 kernels (avx512bw too).
bool pool_bf16_avx512_available();

// For j < n, window j = plane[i0 + 2j + {0, 1, W, W + 1}] (in that tap
// order): vb[j] its maximum, ib[j] its position in the plane. A later tap
// wins if larger or a NaN (the first maximum wins a tie, the last NaN wins),
// exactly pool.cpp's rule. Needs pool_avx512_available().
void max2x2_row_avx512(const float* plane, int64_t i0, int64_t W, int64_t n, float* vb, int64_t* ib);

// The same for a whole plane whose windows all lie inside it (no padding):
// output row oh (n windows) reads input rows oh * stride_h and the next.
// Narrow rows (n <= 8, a small CNN's second pool) go two at a time, so
// the sixteen lanes stay busy.
void max2x2_plane_avx512(const float* plane, int64_t W, int64_t stride_h, int64_t out_h, int64_t n, float* vb,
                         int64_t* ib);

// max_pool2d_backward of one plane whose windows' indices all lie in their
// own 2x2 blocks (rows 2oh, 2oh + 1, columns 2ow, 2ow + 1; out_h rows of n
// windows): each window's gradient, as 0 + gy (what the scatter into zeros
// computes: a -0 lands as +0), goes to the block element idx names and 0 to
// the other three. Writes the blocks only (rows [0, 2 out_h), columns
// [0, 2n)). Returns false, having written part of them, if some index is
// outside its block. Needs pool_avx512_available() and W < 2^30.
bool unpool2x2_plane_avx512(const float* gy, const int64_t* idx, float* gx, int64_t W, int64_t out_h, int64_t n);

// bfloat16 (the raw bits): the same windows, rule and results as the float32
// path gives on the widened tensor rounded back (exact: only a NaN changes,
// getting its quiet bit). Each row's pairs of columns are read as 32-bit
// words, so a row of sixteen windows is one load. Need
// pool_bf16_avx512_available().
void max2x2_row_bf16_avx512(const uint16_t* plane, int64_t i0, int64_t W, int64_t n, uint16_t* vb, int64_t* ib);
void max2x2_plane_bf16_avx512(const uint16_t* plane, int64_t W, int64_t stride_h, int64_t out_h, int64_t n,
                              uint16_t* vb, int64_t* ib);
// unpool2x2_plane_avx512 for bfloat16: each window's 0 + gy in float32,
// rounded back (exact), as the float32 path computes it.
bool unpool2x2_plane_bf16_avx512(const uint16_t* gy, const int64_t* idx, uint16_t* gx, int64_t W, int64_t out_h,
                                 int64_t n);

}  // namespace nabla::cpu

// A float32 matrix product for the "NT" case where both operands run along k
// in memory: C[m, n] = A[m, k] @ B[n, k]^T, as nn::Linear's forward computes
// x @ weight.t(). oneDNN's sgemm packs the transposed B on every call and
// reached 57-59% of the FMA peak on the seed MLP's 64x1000 @ 1000x100
// (bench/README.md, issue 20); here each output is a dot product of two
// contiguous rows, so nothing is packed.
#pragma once
#include <cstdint>

namespace nabla::cpu {

// Computes C (row stride ldc; rows of A and B have strides lda and ldb, each
// row's k elements contiguous) and returns true, or returns false without
// touching C where this kernel does not apply: a CPU without AVX-512, or a
// shape outside the range where it measured faster than oneDNN (m and n up
// to 128, k up to 4096, long enough for its n: sgemm_nt_dot_applies); the
// caller then uses oneDNN.
bool sgemm_nt_dot(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
                  int64_t ldc);

// Whether sgemm_nt_dot runs for this shape on this CPU (for tests and benches).
bool sgemm_nt_dot_applies(int64_t m, int64_t n, int64_t k);

}  // namespace nabla::cpu

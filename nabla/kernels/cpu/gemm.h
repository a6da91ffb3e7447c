// CPU matrix multiply: float32 on oneDNN's sgemm, except small A @ B^T
// products with both operands along k, which gemm_nt.h computes as dot
// products; float64 on OpenBLAS's dgemm (any operand layout that is a plain
// or transposed matrix goes straight to BLAS); bfloat16 on oneDNN's matmul; a
// simple loop for integers.
#pragma once
#include "nabla/core/tensor.h"

namespace nabla::cpu {

// out[b] = a[b] @ b[b] for 3-D tensors (a batch of 1 for mm).
void batched_gemm(const Tensor& a, const Tensor& b, const Tensor& out);

// The same for bfloat16 tensors on oneDNN's bfloat16 matmul (float32
// accumulation, one rounding at the end). Returns false, without touching
// out, for other dtypes and where oneDNN has no fast implementation (a CPU
// without AVX-512): the caller then computes in float32.
bool batched_gemm_reduced(const Tensor& a, const Tensor& b, const Tensor& out);

}  // namespace nabla::cpu

// OpenCL kernels of the matmul family (mm, bmm) through CLBlast's GEMM:
// float32 and float64 (where the device has fp64). Strided operands are
// passed as transposes with their leading dimension when one of their two
// innermost strides is 1, else made contiguous on the device first.
#pragma once
#include <cstddef>

#include "nabla/core/dtype.h"
#include "nabla/kernels/opencl/runtime.h"

namespace nabla::opencl {

// One operand of gemm(): a row-major matrix at `offset` elements into `mem`,
// `ld` elements between rows, the next matrix of a batch `batch_stride`
// elements on (0: every product shares it).
struct GemmMatrix {
  cl_mem mem = nullptr;
  std::size_t offset = 0, ld = 0, batch_stride = 0;
  bool transpose = false;  // used as its transpose (A and B only)
};

// C_b = op(A_b) @ op(B_b) + beta * C_b for b < batch, with op(A) [m, k] and
// op(B) [k, n], through CLBlast's GEMM (the one mm and bmm use): float32, or
// float64 where the device has fp64; k = 0 (an empty sum) gives beta * C
// for beta 0 or 1. An Error naming `op` otherwise, or when nabla was built
// without CLBlast (has_gemm() says which).
void gemm(const char* op, DType t, DeviceContext& dev, std::size_t m, std::size_t n, std::size_t k, const GemmMatrix& a,
          const GemmMatrix& b, double beta, const GemmMatrix& c, std::size_t batch = 1);
bool has_gemm();

// Registers nothing when nabla was built without CLBlast.
void register_matmul_kernels();

}  // namespace nabla::opencl

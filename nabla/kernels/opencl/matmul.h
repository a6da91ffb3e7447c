// The OpenCL GEMM (accel::Runtime::gemm on OpenCL) through CLBlast:
// float32 and float64, row-major, batched with strides. The mm, bmm and
// convolution kernels that call it are the accelerators' (kernels/accel).
#pragma once
#include <cstddef>

#include "nabla/core/dtype.h"
#include "nabla/kernels/accel/runtime.h"
#include "nabla/kernels/opencl/runtime.h"

namespace nabla::opencl {

// C_b = op(A_b) @ op(B_b) + beta * C_b for b < batch (m, n, k, batch > 0;
// accel::gemm handles the empty cases and the dtype checks). An Error
// naming `op` when nabla was built without CLBlast (has_gemm() says which)
// or when CLBlast fails.
void gemm(const char* op, DType t, DeviceContext& dev, std::size_t m, std::size_t n, std::size_t k,
          const accel::GemmMatrix& a, const accel::GemmMatrix& b, double beta, const accel::GemmMatrix& c,
          std::size_t batch);
bool has_gemm();

}  // namespace nabla::opencl

// Accelerator kernels of the matmul family (mm, bmm) through the backend's
// GEMM (Runtime::gemm: CLBlast on OpenCL, cuBLAS on CUDA): float32 and
// float64 (where the device has it). Strided operands are passed as
// transposes with their leading dimension when one of their two innermost
// strides is 1, else made contiguous on the device first. Registers nothing
// when the backend has no GEMM.
#include <algorithm>

#include "nabla/core/grad_mode.h"
#include "nabla/kernels/accel/register.h"
#include "nabla/kernels/accel/runtime.h"
#include "nabla/ops/kernel_registry.h"
#include "nabla/ops/ops.h"

namespace nabla {
extern const OpDef mm_op, bmm_op;  // ops/linalg_ops.cpp

namespace accel {
namespace {

// One operand as the GEMM sees it: a row-major matrix (or a batch of them),
// transposed or not, with its leading dimension and batch stride, in elements.
struct GemmOperand {
  Tensor t;  // keeps a contiguous copy alive when one was needed
  GemmMatrix m;
};

// x: [..., rows, cols] with the batch (if any) in dim 0.
GemmOperand operand(const Tensor& x) {
  const int64_t r = x.dim() - 2, c = x.dim() - 1;
  const int64_t rows = x.size(r), cols = x.size(c), sr = x.stride(r), sc = x.stride(c);
  GemmOperand o;
  o.t = x;
  if (sc == 1 && sr >= std::max<int64_t>(cols, 1)) {
    o.m.ld = static_cast<std::size_t>(sr);
  } else if (sr == 1 && sc >= std::max<int64_t>(rows, 1)) {
    o.m.transpose = true;
    o.m.ld = static_cast<std::size_t>(sc);
  } else {
    NoGradGuard no_grad;  // part of this kernel: the copy is not an op of the user's
    o.t = x.contiguous();
    o.m.ld = static_cast<std::size_t>(std::max<int64_t>(cols, 1));
  }
  o.m.batch_stride = x.dim() == 3 ? static_cast<std::size_t>(o.t.stride(0)) : 0;
  o.m.offset = static_cast<std::size_t>(o.t.storage_offset());
  o.m.handle = handle_of(o.t);
  return o;
}

void run_matmul(const char* op, const Tensor& a, const Tensor& b, Tensor& out) {
  const int64_t m = a.size(a.dim() - 2), k = a.size(a.dim() - 1), n = b.size(b.dim() - 1);
  const int64_t batch = a.dim() == 3 ? a.size(0) : 1;
  if (out.numel() == 0) return;
  const DeviceRef dev = device_ref(out.device(), op);
  const GemmOperand A = operand(a), B = operand(b);
  const auto M = static_cast<std::size_t>(m), N = static_cast<std::size_t>(n);
  const GemmMatrix C{handle_of(out), static_cast<std::size_t>(out.storage_offset()), N, M * N, false};
  gemm(op, out.dtype(), dev, M, N, static_cast<std::size_t>(k), A.m, B.m, 0.0, C, static_cast<std::size_t>(batch));
}

template <const char* kName>
void matmul_kernel(Inputs in, const Attrs&, std::span<Tensor> out) {
  run_matmul(kName, in[0], in[1], out[0]);
}

constexpr char kMm[] = "mm";
constexpr char kBmm[] = "bmm";

}  // namespace

void register_matmul_kernels(DeviceType type) {
  if (!find_runtime(type)->has_gemm()) return;
  register_kernel(mm_op, type, matmul_kernel<kMm>);
  register_kernel(bmm_op, type, matmul_kernel<kBmm>);
}

}  // namespace accel
}  // namespace nabla

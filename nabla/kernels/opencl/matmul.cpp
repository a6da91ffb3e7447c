#include "nabla/kernels/opencl/matmul.h"

#ifdef NABLA_HAVE_CLBLAST
// runtime.h first: it sets CL_TARGET_OPENCL_VERSION before CL/cl.h is read.
#include "nabla/kernels/opencl/runtime.h"

#include <clblast.h>

#include "nabla/core/grad_mode.h"
#include "nabla/ops/kernel_registry.h"
#include "nabla/ops/ops.h"

namespace nabla {
extern const OpDef mm_op, bmm_op;  // ops/linalg_ops.cpp

namespace opencl {
namespace {

// One operand as CLBlast sees it: a row-major matrix (or a batch of them),
// transposed or not, with its leading dimension and batch stride, in elements.
struct GemmOperand {
  Tensor t;  // keeps a contiguous copy alive when one was needed
  clblast::Transpose transpose = clblast::Transpose::kNo;
  std::size_t ld = 0, batch_stride = 0, offset = 0;
};

// x: [..., rows, cols] with the batch (if any) in dim 0.
GemmOperand operand(const Tensor& x) {
  const int64_t r = x.dim() - 2, c = x.dim() - 1;
  const int64_t rows = x.size(r), cols = x.size(c), sr = x.stride(r), sc = x.stride(c);
  GemmOperand o;
  o.t = x;
  if (sc == 1 && sr >= std::max<int64_t>(cols, 1)) {
    o.ld = static_cast<std::size_t>(sr);
  } else if (sr == 1 && sc >= std::max<int64_t>(rows, 1)) {
    o.transpose = clblast::Transpose::kYes;
    o.ld = static_cast<std::size_t>(sc);
  } else {
    NoGradGuard no_grad;  // part of this kernel: the copy is not an op of the user's
    o.t = x.contiguous();
    o.ld = static_cast<std::size_t>(std::max<int64_t>(cols, 1));
  }
  o.batch_stride = x.dim() == 3 ? static_cast<std::size_t>(o.t.stride(0)) : 0;
  o.offset = static_cast<std::size_t>(o.t.storage_offset());
  return o;
}

void check_status(clblast::StatusCode s, const char* op) {
  NABLA_CHECK(s == clblast::StatusCode::kSuccess, op, ": CLBlast's GEMM failed on the OpenCL device (CLBlast status ",
              static_cast<int>(s), ")");
}

template <class T>
void gemm(const char* op, const Tensor& a, const Tensor& b, Tensor& out) {
  const int64_t m = a.size(a.dim() - 2), k = a.size(a.dim() - 1), n = b.size(b.dim() - 1);
  const int64_t batch = a.dim() == 3 ? a.size(0) : 1;
  if (out.numel() == 0) return;
  DeviceContext& dev = device(out.device().index, op);
  cl_command_queue queue = dev.queue(0);
  if (k == 0) {  // an empty sum: zeros
    const unsigned char zero = 0;
    check(clEnqueueFillBuffer(queue, mem_of(out), &zero, 1, static_cast<std::size_t>(out.storage_offset()) * sizeof(T),
                              static_cast<std::size_t>(out.numel()) * sizeof(T), 0, nullptr, nullptr),
          "clEnqueueFillBuffer", op);
    return;
  }
  const GemmOperand A = operand(a), B = operand(b);
  const auto M = static_cast<std::size_t>(m), N = static_cast<std::size_t>(n), K = static_cast<std::size_t>(k);
  const auto out_offset = static_cast<std::size_t>(out.storage_offset());
  if (batch == 1 && a.dim() == 2) {
    check_status(clblast::Gemm<T>(clblast::Layout::kRowMajor, A.transpose, B.transpose, M, N, K, T(1), mem_of(A.t),
                                  A.offset, A.ld, mem_of(B.t), B.offset, B.ld, T(0), mem_of(out), out_offset, N, &queue),
                 op);
    return;
  }
  check_status(clblast::GemmStridedBatched<T>(clblast::Layout::kRowMajor, A.transpose, B.transpose, M, N, K, T(1),
                                              mem_of(A.t), A.offset, A.ld, A.batch_stride, mem_of(B.t), B.offset, B.ld,
                                              B.batch_stride, T(0), mem_of(out), out_offset, N, M * N,
                                              static_cast<std::size_t>(batch), &queue),
               op);
}

template <const char* kName>
void matmul_kernel(Inputs in, const Attrs&, std::span<Tensor> out) {
  const DType t = out[0].dtype();
  if (t == kFloat32) return gemm<float>(kName, in[0], in[1], out[0]);
  if (t == kFloat64) {
    NABLA_CHECK(device(out[0].device().index, kName).fp64, kName, ": ", out[0].device(),
                " has no float64 (cl_khr_fp64); use float32");
    return gemm<double>(kName, in[0], in[1], out[0]);
  }
  fail(kName, ": on OpenCL takes float32 or float64 (CLBlast's GEMM), got ", t);
}

constexpr char kMm[] = "mm";
constexpr char kBmm[] = "bmm";

}  // namespace

void register_matmul_kernels() {
  register_kernel(mm_op, DeviceType::OpenCL, matmul_kernel<kMm>);
  register_kernel(bmm_op, DeviceType::OpenCL, matmul_kernel<kBmm>);
}

}  // namespace opencl
}  // namespace nabla

#else

namespace nabla::opencl {
void register_matmul_kernels() {}
}  // namespace nabla::opencl

#endif

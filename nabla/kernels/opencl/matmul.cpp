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

clblast::Transpose transpose_of(const GemmMatrix& x) {
  return x.transpose ? clblast::Transpose::kYes : clblast::Transpose::kNo;
}

template <class T>
void gemm_t(const char* op, DeviceContext& dev, std::size_t m, std::size_t n, std::size_t k, const GemmMatrix& a,
            const GemmMatrix& b, T beta, const GemmMatrix& c, std::size_t batch) {
  cl_command_queue queue = dev.queue(0);
  if (batch == 1) {
    check_status(clblast::Gemm<T>(clblast::Layout::kRowMajor, transpose_of(a), transpose_of(b), m, n, k, T(1), a.mem,
                                  a.offset, a.ld, b.mem, b.offset, b.ld, beta, c.mem, c.offset, c.ld, &queue),
                 op);
    return;
  }
  check_status(clblast::GemmStridedBatched<T>(clblast::Layout::kRowMajor, transpose_of(a), transpose_of(b), m, n, k,
                                              T(1), a.mem, a.offset, a.ld, a.batch_stride, b.mem, b.offset, b.ld,
                                              b.batch_stride, beta, c.mem, c.offset, c.ld, c.batch_stride, batch,
                                              &queue),
               op);
}

GemmMatrix matrix_of(const GemmOperand& o) {
  return {mem_of(o.t), o.offset, o.ld, o.batch_stride, o.transpose == clblast::Transpose::kYes};
}

void run_matmul(const char* op, const Tensor& a, const Tensor& b, Tensor& out) {
  const int64_t m = a.size(a.dim() - 2), k = a.size(a.dim() - 1), n = b.size(b.dim() - 1);
  const int64_t batch = a.dim() == 3 ? a.size(0) : 1;
  if (out.numel() == 0) return;
  DeviceContext& dev = device(out.device().index, op);
  const GemmOperand A = operand(a), B = operand(b);
  const auto M = static_cast<std::size_t>(m), N = static_cast<std::size_t>(n);
  const GemmMatrix C{mem_of(out), static_cast<std::size_t>(out.storage_offset()), N, M * N, false};
  gemm(op, out.dtype(), dev, M, N, static_cast<std::size_t>(k), matrix_of(A), matrix_of(B), 0.0, C,
       static_cast<std::size_t>(batch));
}

template <const char* kName>
void matmul_kernel(Inputs in, const Attrs&, std::span<Tensor> out) {
  run_matmul(kName, in[0], in[1], out[0]);
}

constexpr char kMm[] = "mm";
constexpr char kBmm[] = "bmm";

}  // namespace

namespace {

// C_b = beta * C_b for an empty sum (k = 0), which CLBlast refuses: nothing
// for beta = 1, zeros for beta = 0 (the only betas nabla's callers pass).
void scale_by_beta(const char* op, DType t, DeviceContext& dev, std::size_t m, std::size_t n, double beta,
                   const GemmMatrix& c, std::size_t batch) {
  if (beta == 1.0) return;
  NABLA_CHECK(beta == 0.0, op, ": internal error: an empty GEMM (k = 0) with beta ", beta);
  const unsigned char zero = 0;
  const std::size_t elem = itemsize(t);
  auto fill = [&](std::size_t at, std::size_t count) {
    check(clEnqueueFillBuffer(dev.queue(0), c.mem, &zero, 1, at * elem, count * elem, 0, nullptr, nullptr),
          "clEnqueueFillBuffer", op);
  };
  if (c.ld == n && (batch == 1 || c.batch_stride == m * n)) return fill(c.offset, batch * m * n);
  for (std::size_t i = 0; i < batch; ++i)
    for (std::size_t r = 0; r < m; ++r) fill(c.offset + i * c.batch_stride + r * c.ld, n);
}

}  // namespace

void gemm(const char* op, DType t, DeviceContext& dev, std::size_t m, std::size_t n, std::size_t k,
          const GemmMatrix& a, const GemmMatrix& b, double beta, const GemmMatrix& c, std::size_t batch) {
  NABLA_CHECK(t == kFloat32 || t == kFloat64, op, ": on OpenCL takes float32 or float64 (CLBlast's GEMM), got ", t);
  NABLA_CHECK(t == kFloat32 || dev.fp64, op, ": opencl:", dev.index, " (", dev.name,
              ") has no float64 (cl_khr_fp64); use float32");
  if (m == 0 || n == 0 || batch == 0) return;
  if (k == 0) return scale_by_beta(op, t, dev, m, n, beta, c, batch);
  if (t == kFloat32) return gemm_t<float>(op, dev, m, n, k, a, b, static_cast<float>(beta), c, batch);
  gemm_t<double>(op, dev, m, n, k, a, b, beta, c, batch);
}

bool has_gemm() { return true; }

void register_matmul_kernels() {
  register_kernel(mm_op, DeviceType::OpenCL, matmul_kernel<kMm>);
  register_kernel(bmm_op, DeviceType::OpenCL, matmul_kernel<kBmm>);
}

}  // namespace opencl
}  // namespace nabla

#else

namespace nabla::opencl {
void gemm(const char* op, DType, DeviceContext&, std::size_t, std::size_t, std::size_t, const GemmMatrix&,
          const GemmMatrix&, double, const GemmMatrix&, std::size_t) {
  fail(op, ": this nabla was built without CLBlast, which its OpenCL GEMM needs");
}
bool has_gemm() { return false; }
void register_matmul_kernels() {}
}  // namespace nabla::opencl

#endif

#include "nabla/kernels/opencl/matmul.h"

#ifdef NABLA_HAVE_CLBLAST
#include <clblast.h>

namespace nabla::opencl {
namespace {

void check_status(clblast::StatusCode s, const char* op) {
  NABLA_CHECK(s == clblast::StatusCode::kSuccess, op, ": CLBlast's GEMM failed on the OpenCL device (CLBlast status ",
              static_cast<int>(s), ")");
}

clblast::Transpose transpose_of(const accel::GemmMatrix& x) {
  return x.transpose ? clblast::Transpose::kYes : clblast::Transpose::kNo;
}

cl_mem mem(const accel::GemmMatrix& x) { return static_cast<cl_mem>(x.handle); }

template <class T>
void gemm_t(const char* op, DeviceContext& dev, std::size_t m, std::size_t n, std::size_t k,
            const accel::GemmMatrix& a, const accel::GemmMatrix& b, T beta, const accel::GemmMatrix& c,
            std::size_t batch) {
  cl_command_queue queue = dev.queue(0);
  if (batch == 1) {
    check_status(clblast::Gemm<T>(clblast::Layout::kRowMajor, transpose_of(a), transpose_of(b), m, n, k, T(1), mem(a),
                                  a.offset, a.ld, mem(b), b.offset, b.ld, beta, mem(c), c.offset, c.ld, &queue),
                 op);
    return;
  }
  check_status(clblast::GemmStridedBatched<T>(clblast::Layout::kRowMajor, transpose_of(a), transpose_of(b), m, n, k,
                                              T(1), mem(a), a.offset, a.ld, a.batch_stride, mem(b), b.offset, b.ld,
                                              b.batch_stride, beta, mem(c), c.offset, c.ld, c.batch_stride, batch,
                                              &queue),
               op);
}

}  // namespace

void gemm(const char* op, DType t, DeviceContext& dev, std::size_t m, std::size_t n, std::size_t k,
          const accel::GemmMatrix& a, const accel::GemmMatrix& b, double beta, const accel::GemmMatrix& c,
          std::size_t batch) {
  if (t == kFloat32) return gemm_t<float>(op, dev, m, n, k, a, b, static_cast<float>(beta), c, batch);
  gemm_t<double>(op, dev, m, n, k, a, b, beta, c, batch);
}

bool has_gemm() { return true; }

}  // namespace nabla::opencl

#else

namespace nabla::opencl {
void gemm(const char* op, DType, DeviceContext&, std::size_t, std::size_t, std::size_t, const accel::GemmMatrix&,
          const accel::GemmMatrix&, double, const accel::GemmMatrix&, std::size_t) {
  fail(op, ": this nabla was built without CLBlast, which its OpenCL GEMM needs");
}
bool has_gemm() { return false; }
}  // namespace nabla::opencl

#endif

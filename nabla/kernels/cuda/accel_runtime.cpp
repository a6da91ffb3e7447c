// The CUDA implementation of the accelerator runtime (kernels/accel/
// runtime.h), on which every accelerator kernel runs on CUDA:
// - programs: device C rendered as CUDA C (source.h), compiled by NVRTC for
//   the GPU's own architecture (a cubin: no JIT at load time) through the
//   program cache (memory and disk), loaded once per device as a CUmodule;
// - launches: cuLaunchKernel on the device's compute stream (stream 0), 256
//   threads a block unless the kernel asks for its own group size;
// - fills: cuMemsetD8/D16/D32Async, and a small kernel for 8-byte patterns;
// - reads: cuMemcpyDtoHAsync, then the stream synchronized;
// - GEMM: cuBLAS (loaded at the first GEMM: cublas.h; row-major operands passed as the column-major transposes
//   they are, C^T = B^T A^T), TF32 off (CUBLAS_DEFAULT_MATH) as in PyTorch:
//   float32 results are float32 products and sums, not 10-bit-mantissa ones.
#include "nabla/kernels/cuda/accel_runtime.h"

#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "nabla/kernels/cuda/cublas.h"
#include "nabla/kernels/cuda/memory.h"
#include "nabla/kernels/cuda/nvrtc.h"
#include "nabla/kernels/cuda/program_cache.h"
#include "nabla/kernels/cuda/runtime.h"
#include "nabla/kernels/cuda/source.h"

namespace nabla::cuda {
namespace {

constexpr unsigned kDefaultBlock = 256;

// A loaded kernel. Modules stay loaded for the process's life (as OpenCL's
// programs do): kernels may run until exit.
struct LoadedKernel {
  CUmodule module = nullptr;
  CUfunction function = nullptr;
};

// The NVRTC target for a device: a cubin for its own architecture (sm_90 on
// an H100), or PTX for the newest NVRTC knows on a newer GPU (nvrtc.h).
NvrtcTarget target_of(const DeviceContext& d) {
  NvrtcTarget t;
  t.arch = arch_for_device(d.compute_major, d.compute_minor);
  return t;
}

// Arguments are copied into the call (cuLaunchKernel reads them through an
// array of pointers, one per argument); each slot is 8-byte aligned.
class CudaKernelCall final : public accel::KernelCall {
 public:
  CudaKernelCall(DeviceContext& dev, CUfunction function, const char* op)
      : dev_(dev), function_(function), op_(op) {}

  void tensor(const Tensor& t) override {
    const CUdeviceptr base = device_ptr(t.impl()->storage->handle(), 0);
    value(&base, sizeof base);
    const int64_t offset = t.impl()->offset;
    value(&offset, sizeof offset);
  }
  void value(const void* bytes, std::size_t size) override {
    NABLA_CHECK(size <= sizeof(Slot), op_, ": internal error: a kernel argument of ", size, " bytes");
    Slot s{};
    std::memcpy(s.bytes, bytes, size);
    slots_.push_back(s);
  }
  void run(std::size_t global, std::size_t local_size) override {
    if (global == 0) return;
    const std::size_t block = local_size != 0 ? local_size : kDefaultBlock;
    const std::size_t grid = (global + block - 1) / block;
    NABLA_CHECK(grid <= 0x7fffffffu, op_, ": ", global, " work items exceed CUDA's grid size");
    std::vector<void*> params(slots_.size());
    for (std::size_t i = 0; i < slots_.size(); ++i) params[i] = slots_[i].bytes;
    dev_.make_current();
    check(driver().cuLaunchKernel(function_, static_cast<unsigned>(grid), 1, 1, static_cast<unsigned>(block), 1, 1, 0,
                                  dev_.stream(0), params.data(), nullptr),
          "cuLaunchKernel", op_);
  }

 private:
  struct alignas(8) Slot {
    unsigned char bytes[8];
  };
  DeviceContext& dev_;
  CUfunction function_;
  const char* op_;
  std::vector<Slot> slots_;
};

class CudaRuntime final : public accel::Runtime {
 public:
  DeviceType type() const override { return DeviceType::CUDA; }
  const char* name() const override { return "CUDA"; }
  std::string describe(int index) override { return device_text(device(index)); }
  bool has_float64(int) override { return true; }  // every CUDA GPU has double
  void check_dtype(const char* op, DType t, int) override {
    NABLA_CHECK(cuda::c_type(t) != nullptr, op, ": no CUDA kernel for ", t,
                " (CUDA kernels take bool, uint8, int32, int64, float32 and float64)");
  }

  std::unique_ptr<accel::KernelCall> launch(int index, const std::string& key, const char* kernel_name,
                                            const std::function<accel::Program()>& make_program,
                                            const char* op) override {
    DeviceContext& dev = device(index, op);
    return std::make_unique<CudaKernelCall>(dev, kernel(dev, key, kernel_name, make_program, op), op);
  }

  void fill(int index, void* handle, std::size_t offset, std::size_t bytes, const void* pattern, std::size_t item,
            const char* op) override {
    if (bytes == 0) return;
    DeviceContext& dev = device(index, op);
    dev.make_current();
    const CUdeviceptr p = device_ptr(handle, offset);
    const Driver& drv = driver();
    switch (item) {
      case 1: {
        unsigned char v;
        std::memcpy(&v, pattern, 1);
        return check(drv.cuMemsetD8Async(p, v, bytes, dev.stream(0)), "cuMemsetD8Async", op);
      }
      case 2: {
        unsigned short v;
        std::memcpy(&v, pattern, 2);
        return check(drv.cuMemsetD16Async(p, v, bytes / 2, dev.stream(0)), "cuMemsetD16Async", op);
      }
      case 4: {
        unsigned int v;
        std::memcpy(&v, pattern, 4);
        return check(drv.cuMemsetD32Async(p, v, bytes / 4, dev.stream(0)), "cuMemsetD32Async", op);
      }
      case 8: {
        uint64_t v;
        std::memcpy(&v, pattern, 8);
        CudaKernelCall call(dev, kernel(dev, "fill8", "nb_fill8", fill8_program, op), op);
        const CUdeviceptr base = device_ptr(handle, 0);
        const int64_t first = static_cast<int64_t>(offset / 8), n = static_cast<int64_t>(bytes / 8);
        call.value(&base, sizeof base);
        call.value(&first, sizeof first);
        call.value(&n, sizeof n);
        call.value(&v, sizeof v);
        return call.run(static_cast<std::size_t>(n), 0);
      }
      default:
        fail(op, ": internal error: a fill pattern of ", item, " bytes");
    }
  }

  void read(int index, void* handle, std::size_t offset, std::size_t bytes, void* host, const char* op) override {
    if (bytes == 0) return;
    DeviceContext& dev = device(index, op);
    dev.make_current();
    check(driver().cuMemcpyDtoHAsync(host, device_ptr(handle, offset), bytes, dev.stream(0)), "cuMemcpyDtoHAsync", op);
    check(driver().cuStreamSynchronize(dev.stream(0)), "cuStreamSynchronize", op);
  }

  bool has_gemm() const override { return true; }
  void gemm(const char* op, DType t, int index, std::size_t m, std::size_t n, std::size_t k,
            const accel::GemmMatrix& a, const accel::GemmMatrix& b, double beta, const accel::GemmMatrix& c,
            std::size_t batch) override {
    DeviceContext& dev = device(index, op);
    dev.make_current();
    cublasHandle_t h = blas(dev, op);
    const Cublas& blas_fn = cublas(op);
    // Row-major X [r, c] with leading dimension ld is column-major X^T: so
    // C^T [n, m] = op(B)^T [n, k] @ op(A)^T [k, m], B first.
    const cublasOperation_t tb = b.transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t ta = a.transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
    const std::size_t elem = itemsize(t);
    const auto ptr = [&](const accel::GemmMatrix& x) { return device_ptr(x.handle, x.offset * elem); };
    const int M = narrow(m, op), N = narrow(n, op), K = narrow(k, op), B = narrow(batch, op);
    const int lda = narrow(a.ld, op), ldb = narrow(b.ld, op), ldc = narrow(c.ld, op);
    if (t == kFloat32) {
      const float alpha = 1.0f, beta_f = static_cast<float>(beta);
      const auto* A = reinterpret_cast<const float*>(ptr(a));
      const auto* Bp = reinterpret_cast<const float*>(ptr(b));
      auto* C = reinterpret_cast<float*>(ptr(c));
      if (batch == 1)
        return check_cublas(blas_fn.cublasSgemm(h, tb, ta, N, M, K, &alpha, Bp, ldb, A, lda, &beta_f, C, ldc), "cublasSgemm",
                            op);
      return check_cublas(blas_fn.cublasSgemmStridedBatched(h, tb, ta, N, M, K, &alpha, Bp, ldb,
                                                    static_cast<long long>(b.batch_stride), A, lda,
                                                    static_cast<long long>(a.batch_stride), &beta_f, C, ldc,
                                                    static_cast<long long>(c.batch_stride), B),
                          "cublasSgemmStridedBatched", op);
    }
    const double alpha = 1.0;
    const auto* A = reinterpret_cast<const double*>(ptr(a));
    const auto* Bp = reinterpret_cast<const double*>(ptr(b));
    auto* C = reinterpret_cast<double*>(ptr(c));
    if (batch == 1)
      return check_cublas(blas_fn.cublasDgemm(h, tb, ta, N, M, K, &alpha, Bp, ldb, A, lda, &beta, C, ldc), "cublasDgemm", op);
    check_cublas(blas_fn.cublasDgemmStridedBatched(h, tb, ta, N, M, K, &alpha, Bp, ldb, static_cast<long long>(b.batch_stride),
                                           A, lda, static_cast<long long>(a.batch_stride), &beta, C, ldc,
                                           static_cast<long long>(c.batch_stride), B),
                 "cublasDgemmStridedBatched", op);
  }

 private:
  static accel::Program fill8_program() {
    return accel::program({}, R"DC(
NB_KERNEL nb_fill8(NB_GLOBAL ulong* p, long first, long n, ulong v) {
  const long i = NB_INDEX;
  if (i < n) p[first + i] = v;
}
)DC");
  }

  static int narrow(std::size_t v, const char* op) {
    NABLA_CHECK(v <= 0x7fffffffu, op, ": a GEMM dimension of ", v, " exceeds cuBLAS's int range");
    return static_cast<int>(v);
  }

  // The kernel for `key` on `dev`: loaded before, else compiled (or read
  // from the disk cache) and loaded now.
  CUfunction kernel(DeviceContext& dev, const std::string& key, const char* kernel_name,
                    const std::function<accel::Program()>& make_program, const char* op) {
    std::lock_guard lock(mu_);
    auto& loaded = kernels_[{dev.index, key}];
    if (loaded.function) return loaded.function;
    const accel::Program p = make_program();
    const std::string source = cuda_device_c_source(std::span<const TypeDef>(p.types), p.body);
    std::shared_ptr<const std::string> image = program_cache().get(source, op, target_of(dev));
    dev.make_current();
    check(driver().cuModuleLoadData(&loaded.module, image->c_str()), "cuModuleLoadData", op);
    check(driver().cuModuleGetFunction(&loaded.function, loaded.module, kernel_name), "cuModuleGetFunction",
          std::string(op) + " (kernel " + kernel_name + ")");
    return loaded.function;
  }

  // One cuBLAS handle per device, on its compute stream, TF32 off, with a
  // workspace of its own from the device's allocator (held for the process's
  // life): cuBLAS then never allocates inside a GEMM, which a CUDA graph's
  // capture (cuda_graph.cpp) requires. Sizes as PyTorch's defaults
  // (CUBLAS_WORKSPACE_CONFIG ":4096:8" on Hopper and later, else
  // ":4096:2:16:8").
  cublasHandle_t blas(DeviceContext& dev, const char* op) {
    std::lock_guard lock(mu_);
    cublasHandle_t& h = blas_[dev.index];
    if (h != nullptr) return h;
    const Cublas& fn = cublas(op);
    cublasHandle_t made = nullptr;
    check_cublas(fn.cublasCreate(&made), "cublasCreate", op);
    check_cublas(fn.cublasSetStream(made, dev.stream(0)), "cublasSetStream", op);
    check_cublas(fn.cublasSetMathMode(made, CUBLAS_DEFAULT_MATH), "cublasSetMathMode", op);
    const std::size_t workspace = dev.compute_major >= 9 ? std::size_t(32) << 20 : (std::size_t(8) << 20) + (128 << 10);
    void* block = dev.allocator->allocate(workspace);  // never freed, like the handle
    check_cublas(fn.cublasSetWorkspace(made, block, workspace), "cublasSetWorkspace", op);
    h = made;
    return h;
  }

  std::mutex mu_;
  std::map<std::pair<int, std::string>, LoadedKernel> kernels_;
  std::map<int, cublasHandle_t> blas_;
};

}  // namespace

accel::Runtime& accel_runtime() {
  static CudaRuntime* runtime = new CudaRuntime();  // never destroyed: kernels may run at exit
  return *runtime;
}

}  // namespace nabla::cuda

#include "nabla/kernels/opencl/accel_runtime.h"

#include <mutex>

#include "nabla/kernels/opencl/launch.h"
#include "nabla/kernels/opencl/matmul.h"
#include "nabla/kernels/opencl/program_cache.h"
#include "nabla/kernels/opencl/runtime.h"

namespace nabla::opencl {
namespace {

// cl_kernel arguments are state shared by every thread: the call holds the
// kernel's lock from its first argument to the enqueue.
class OpenCLKernelCall final : public accel::KernelCall {
 public:
  OpenCLKernelCall(DeviceContext& dev, std::shared_ptr<CompiledKernel> kernel, const char* op)
      : dev_(dev), kernel_(std::move(kernel)), lock_(kernel_->mu), op_(op) {}

  void tensor(const Tensor& t) override {
    const cl_mem m = mem_of(t);
    set(sizeof m, &m);
    const cl_long offset = t.impl()->offset;
    set(sizeof offset, &offset);
  }
  void value(const void* bytes, std::size_t size) override { set(size, bytes); }
  void run(std::size_t global, std::size_t local_size) override {
    if (global != 0) {
      if (local_size != 0) global = (global + local_size - 1) / local_size * local_size;
      check(clEnqueueNDRangeKernel(dev_.queue(0), kernel_->kernel, 1, nullptr, &global,
                                   local_size != 0 ? &local_size : nullptr, 0, nullptr, nullptr),
            "clEnqueueNDRangeKernel", op_);
    }
    lock_.unlock();
  }

 private:
  void set(std::size_t size, const void* value) {
    check(clSetKernelArg(kernel_->kernel, arg_++, size, value), "clSetKernelArg", op_);
  }
  DeviceContext& dev_;
  std::shared_ptr<CompiledKernel> kernel_;
  std::unique_lock<std::mutex> lock_;
  const char* op_;
  cl_uint arg_ = 0;
};

class OpenCLRuntime final : public accel::Runtime {
 public:
  DeviceType type() const override { return DeviceType::OpenCL; }
  const char* name() const override { return "OpenCL"; }
  std::string describe(int index) override {
    return "opencl:" + std::to_string(index) + " (" + device(index, "opencl").name + ")";
  }
  bool has_float64(int index) override { return device(index, "opencl").fp64; }
  void check_dtype(const char* op, DType t, int index) override {
    opencl::check_dtype(op, t, device(index, op));
  }

  std::unique_ptr<accel::KernelCall> launch(int index, const std::string& key, const char* kernel_name,
                                            const std::function<accel::Program()>& make_program,
                                            const char* op) override {
    DeviceContext& dev = device(index, op);
    auto kernel = get_kernel(index, key, kernel_name, [&] { return device_c_source(make_program()); });
    return std::make_unique<OpenCLKernelCall>(dev, std::move(kernel), op);
  }

  void fill(int index, void* handle, std::size_t offset, std::size_t bytes, const void* pattern, std::size_t item,
            const char* op) override {
    if (bytes == 0) return;
    check(clEnqueueFillBuffer(device(index, op).queue(0), static_cast<cl_mem>(handle), pattern, item, offset, bytes, 0,
                              nullptr, nullptr),
          "clEnqueueFillBuffer", op);
  }
  void read(int index, void* handle, std::size_t offset, std::size_t bytes, void* host, const char* op) override {
    check(clEnqueueReadBuffer(device(index, op).queue(0), static_cast<cl_mem>(handle), CL_TRUE, offset, bytes, host, 0,
                              nullptr, nullptr),
          "clEnqueueReadBuffer", op);
  }

  bool has_gemm() const override { return opencl::has_gemm(); }
  void gemm(const char* op, DType t, int index, std::size_t m, std::size_t n, std::size_t k,
            const accel::GemmMatrix& a, const accel::GemmMatrix& b, double beta, const accel::GemmMatrix& c,
            std::size_t batch) override {
    opencl::gemm(op, t, device(index, op), m, n, k, a, b, beta, c, batch);
  }
};

}  // namespace

accel::Runtime& accel_runtime() {
  static OpenCLRuntime* runtime = new OpenCLRuntime();  // never destroyed: kernels may run at exit
  return *runtime;
}

}  // namespace nabla::opencl

#include "nabla/kernels/accel/runtime.h"

#include <array>
#include <atomic>

#include "nabla/core/grad_mode.h"

namespace nabla::accel {
namespace {

std::array<std::atomic<Runtime*>, kNumDeviceTypes>& runtimes() {
  static std::array<std::atomic<Runtime*>, kNumDeviceTypes> r{};
  return r;
}

// C_b = beta * C_b for an empty sum (k = 0), which GEMM libraries refuse:
// nothing for beta = 1, zeros for beta = 0.
void scale_by_beta(const char* op, DType t, DeviceRef dev, std::size_t m, std::size_t n, double beta,
                   const GemmMatrix& c, std::size_t batch) {
  if (beta == 1.0) return;
  NABLA_CHECK(beta == 0.0, op, ": internal error: an empty GEMM (k = 0) with beta ", beta);
  const unsigned char zero = 0;
  const std::size_t elem = itemsize(t);
  auto fill = [&](std::size_t at, std::size_t count) {
    dev.runtime->fill(dev.index, c.handle, at * elem, count * elem, &zero, 1, op);
  };
  if (c.ld == n && (batch == 1 || c.batch_stride == m * n)) return fill(c.offset, batch * m * n);
  for (std::size_t i = 0; i < batch; ++i)
    for (std::size_t r = 0; r < m; ++r) fill(c.offset + i * c.batch_stride + r * c.ld, n);
}

}  // namespace

void register_runtime(Runtime* runtime) { runtimes()[static_cast<std::size_t>(runtime->type())].store(runtime); }

Runtime* find_runtime(DeviceType type) { return runtimes()[static_cast<std::size_t>(type)].load(); }

DeviceRef device_ref(Device d, const char* api) {
  Runtime* r = find_runtime(d.type);
  NABLA_CHECK(r != nullptr, api, ": no kernels for device ", d, " (its backend registered none)");
  return DeviceRef{r, d.index};
}

Launch::Launch(DeviceRef dev, const std::string& key, const char* kernel_name,
               const std::function<Program()>& make_program, const char* op)
    : call_(dev.runtime->launch(dev.index, key, kernel_name, make_program, op)), op_(op) {}

Launch& Launch::arg_as(DType t, double v) {
  switch (t) {
    case kFloat32:
      return value(static_cast<float>(v));
    case kFloat64:
      return value(v);
    case kInt64:
      return value(static_cast<int64_t>(v));
    case kInt32:
      return value(static_cast<int32_t>(v));
    case kBool:
    case kUInt8:
      return value(static_cast<uint8_t>(v));
    default:
      fail(op_, ": no kernel argument of type ", t);
  }
}

void gemm(const char* op, DType t, DeviceRef dev, std::size_t m, std::size_t n, std::size_t k, const GemmMatrix& a,
          const GemmMatrix& b, double beta, const GemmMatrix& c, std::size_t batch) {
  NABLA_CHECK(dev.runtime->has_gemm(), op, ": this nabla's ", dev.runtime->name(),
              " backend was built without a GEMM library (OpenCL: CLBlast)");
  NABLA_CHECK(t == kFloat32 || t == kFloat64, op, ": on ", dev.runtime->name(), " takes float32 or float64, got ", t);
  NABLA_CHECK(t == kFloat32 || dev.fp64(), op, ": ", dev.name(), " has no float64; use float32");
  if (m == 0 || n == 0 || batch == 0) return;
  if (k == 0) return scale_by_beta(op, t, dev, m, n, beta, c, batch);
  dev.runtime->gemm(op, t, dev.index, m, n, k, a, b, beta, c, batch);
}

void fill_items(const Tensor& t, const void* pattern, std::size_t item, const char* op) {
  const std::size_t bytes = static_cast<std::size_t>(t.numel()) * item;
  if (bytes == 0) return;
  const DeviceRef dev = device_ref(t.device(), op);
  dev.runtime->fill(dev.index, handle_of(t), static_cast<std::size_t>(t.storage_offset()) * item, bytes, pattern,
                    item, op);
}

void zero_fill(const Tensor& t, const char* op) {
  const std::size_t item = itemsize(t.dtype()), bytes = static_cast<std::size_t>(t.numel()) * item;
  if (bytes == 0) return;
  const unsigned char zero = 0;
  const DeviceRef dev = device_ref(t.device(), op);
  dev.runtime->fill(dev.index, handle_of(t), static_cast<std::size_t>(t.storage_offset()) * item, bytes, &zero, 1, op);
}

void read_items(const Tensor& t, void* host, std::size_t bytes, const char* op) {
  const DeviceRef dev = device_ref(t.device(), op);
  dev.runtime->read(dev.index, handle_of(t), static_cast<std::size_t>(t.storage_offset()) * itemsize(t.dtype()), bytes,
                    host, op);
}

Tensor dense(const Tensor& t) {
  if (t.is_contiguous()) return t;
  NoGradGuard no_grad;
  return t.contiguous();
}

}  // namespace nabla::accel

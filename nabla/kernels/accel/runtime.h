// The accelerator backends' shared host side. Every kernel of an accelerator
// (OpenCL, CUDA) is written once: its device code in device C
// (kernels/device), its host code here in kernels/accel, against this small
// Runtime interface that each backend implements (kernels/opencl/
// accel_runtime.cpp; the CUDA backend's own). A backend registers the
// kernels with register_accel_kernels(type) once its Runtime is registered:
// adding a backend adds a runtime, not a copy of each op's host code
// (DESIGN.md, "Backends").
//
//   DeviceRef dev = device_ref(out[0].device(), "softmax");
//   Launch k(dev, "softmax|" + key, "nb_softmax", [&] { return program({{"T", t}}, body); }, "softmax");
//   k.arg(out[0]).arg(x).arg(rows).run(rows);
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nabla/core/tensor.h"

namespace nabla::accel {

// A typedef the kernel's source uses: {"T", kFloat32} -> "typedef float T;".
using TypeDef = std::pair<const char*, DType>;

// A device C program: its element typedefs and its body (kernels/device).
// Each backend renders it with its own prelude (OpenCL C, CUDA C).
struct Program {
  std::vector<TypeDef> types;
  std::string body;
};
inline Program program(std::initializer_list<TypeDef> types, std::string body) {
  return Program{std::vector<TypeDef>(types), std::move(body)};
}

// One call of one compiled kernel, as a backend makes it: arguments in
// order, then run() once.
class KernelCall {
 public:
  virtual ~KernelCall() = default;
  // A tensor: two arguments, its buffer (a cl_mem, a device pointer) and its
  // element offset (long).
  virtual void tensor(const Tensor& t) = 0;
  // A value of `size` bytes (long, double, float, int, uchar).
  virtual void value(const void* bytes, std::size_t size) = 0;
  // `global` work items (nothing when 0), in groups of `local_size` (0: the
  // backend chooses; else `global` is rounded up to a multiple).
  virtual void run(std::size_t global, std::size_t local_size) = 0;
};

// A GEMM operand: a row-major matrix `offset` elements into the buffer
// `handle` (a storage handle), `ld` elements between rows, the next matrix
// of a batch `batch_stride` elements on (0: every product shares it).
struct GemmMatrix {
  void* handle = nullptr;
  std::size_t offset = 0, ld = 0, batch_stride = 0;
  bool transpose = false;  // used as its transpose (A and B only)
};

class Runtime {
 public:
  virtual ~Runtime() = default;
  virtual DeviceType type() const = 0;
  // "OpenCL", "CUDA": for messages.
  virtual const char* name() const = 0;
  // "opencl:0 (pthread-AMD EPYC ...)": for messages.
  virtual std::string describe(int index) = 0;
  virtual bool has_float64(int index) = 0;
  // An Error naming `op` unless device `index`'s kernels take dtype `t`.
  virtual void check_dtype(const char* op, DType t, int index) = 0;

  // The kernel `kernel_name` of the program for `key` (the caller's
  // signature of the program: dtypes and variant), built from make_program()
  // only when neither the memory nor the disk cache has it.
  virtual std::unique_ptr<KernelCall> launch(int index, const std::string& key, const char* kernel_name,
                                             const std::function<Program()>& make_program, const char* op) = 0;

  // Sets `bytes` bytes from byte `offset` of the buffer `handle` to copies
  // of the `item`-byte `pattern` (enqueued on the compute queue; bytes and
  // offset are multiples of item).
  virtual void fill(int index, void* handle, std::size_t offset, std::size_t bytes, const void* pattern,
                    std::size_t item, const char* op) = 0;
  // Copies `bytes` from byte `offset` of the buffer `handle` into host
  // memory, waiting for the work before it.
  virtual void read(int index, void* handle, std::size_t offset, std::size_t bytes, void* host, const char* op) = 0;

  // C_b = op(A_b) @ op(B_b) + beta * C_b for b < batch, with op(A) [m, k]
  // and op(B) [k, n], row-major; float32 and float64; k > 0, m, n, batch > 0
  // (gemm() below handles the empty cases). An Error naming `op` when the
  // backend has no GEMM (has_gemm()).
  virtual bool has_gemm() const = 0;
  virtual void gemm(const char* op, DType t, int index, std::size_t m, std::size_t n, std::size_t k,
                    const GemmMatrix& a, const GemmMatrix& b, double beta, const GemmMatrix& c, std::size_t batch) = 0;
};

// Backends register their runtime once (registering a type twice replaces it).
void register_runtime(Runtime* runtime);
// The runtime of `type`, or null.
Runtime* find_runtime(DeviceType type);

// A device of an accelerator backend, as kernels see it.
struct DeviceRef {
  Runtime* runtime = nullptr;
  int index = 0;
  Device device() const { return Device(runtime->type(), static_cast<int16_t>(index)); }
  bool fp64() const { return runtime->has_float64(index); }
  std::string name() const { return runtime->describe(index); }
};
// The device of `d`; an Error naming `api` when its backend has no runtime.
DeviceRef device_ref(Device d, const char* api);

// One launch of one kernel (Runtime::launch): the arguments in order, then
// run() once. Prepare the inputs (dense(), other ops) before constructing
// it: a backend may hold the kernel's lock until run().
class Launch {
 public:
  Launch(DeviceRef dev, const std::string& key, const char* kernel_name, const std::function<Program()>& make_program,
         const char* op);
  Launch(Launch&&) = default;
  Launch& operator=(Launch&&) = default;

  Launch& arg(const Tensor& t) {
    call_->tensor(t);
    return *this;
  }
  Launch& arg(int64_t v) { return value(v); }
  Launch& arg(double v) { return value(v); }
  Launch& arg(float v) { return value(v); }
  Launch& arg_ulong(uint64_t v) { return value(v); }
  // `size` bytes as one argument (a value of the kernel's element type).
  Launch& arg_bytes(const void* bytes, std::size_t size) {
    call_->value(bytes, size);
    return *this;
  }
  // A number as the kernel's type `t` (float, double, or an integer type).
  Launch& arg_as(DType t, double v);
  void run(std::size_t global, std::size_t local_size = 0) { call_->run(global, local_size); }

 private:
  template <class V>
  Launch& value(V v) {
    call_->value(&v, sizeof v);
    return *this;
  }
  std::unique_ptr<KernelCall> call_;
  const char* op_;
};

// An Error naming `op` unless dev's kernels take dtype `t`.
inline void check_dtype(const char* op, DType t, DeviceRef dev) { dev.runtime->check_dtype(op, t, dev.index); }

// C_b = op(A_b) @ op(B_b) + beta * C_b (Runtime::gemm), also for the empty
// cases: nothing for m, n or batch 0; beta * C for k = 0 (beta 0 or 1, the
// only ones nabla's callers pass). float32, or float64 where the device has it.
void gemm(const char* op, DType t, DeviceRef dev, std::size_t m, std::size_t n, std::size_t k, const GemmMatrix& a,
          const GemmMatrix& b, double beta, const GemmMatrix& c, std::size_t batch = 1);

// Tensor `t` as a contiguous tensor on its device (itself when it already
// is), for kernels that index their inputs densely. Runs no autograd.
Tensor dense(const Tensor& t);

// The storage handle of a tensor (a cl_mem, a device pointer).
inline void* handle_of(const Tensor& t) { return t.impl()->storage->handle(); }
// t's elements (t contiguous) set to the `item`-byte pattern; t's bytes set
// to zero; t's first element read back (waiting for the work before it).
void fill_items(const Tensor& t, const void* pattern, std::size_t item, const char* op);
void zero_fill(const Tensor& t, const char* op);
void read_items(const Tensor& t, void* host, std::size_t bytes, const char* op);

// Registers every kernel of kernels/accel for device type `type`, whose
// runtime must be registered.
void register_accel_kernels(DeviceType type);

}  // namespace nabla::accel

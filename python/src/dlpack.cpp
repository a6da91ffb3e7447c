// DLPack from Python: Tensor.__dlpack__ / __dlpack_device__ (so
// np.from_dlpack(t) and torch.from_dlpack(t) share a CPU tensor's memory) and
// nabla.from_dlpack(obj) (any producer: NumPy >= 1.22 arrays, PyTorch
// tensors, a "dltensor" capsule), without copies. CPU memory only: nabla's
// device tensors are not plain device pointers that another library could use
// (OpenCL buffers) or are not exported yet (CUDA); call .cpu() first.
//
// The structs below are DLPack's stable C ABI (dlpack.h, version 0.8: the
// unversioned DLManagedTensor that NumPy 1.22-1.26 and PyTorch 1.10+ trade).
#include <pybind11/pybind11.h>

#include "casters.h"

namespace py = pybind11;
using nabla::Tensor;

extern "C" {
struct DLDevice {
  int32_t device_type;  // kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLOpenCL = 4, ...
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;  // kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLBool = 6
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; NULL: compact row-major
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};
}

namespace {

constexpr int32_t kDLCPU = 1, kDLCUDAHost = 3;
constexpr uint8_t kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLBool = 6;

DLDataType dl_dtype(nabla::DType t) {
  switch (t) {
    case nabla::kFloat32: return {kDLFloat, 32, 1};
    case nabla::kFloat64: return {kDLFloat, 64, 1};
    case nabla::kFloat16: return {kDLFloat, 16, 1};
    case nabla::kBFloat16: return {kDLBfloat, 16, 1};
    case nabla::kInt64: return {kDLInt, 64, 1};
    case nabla::kInt32: return {kDLInt, 32, 1};
    case nabla::kUInt8: return {kDLUInt, 8, 1};
    case nabla::kBool: return {kDLBool, 8, 1};
    default: throw nabla::Error("Tensor.__dlpack__: dtype " + std::string(nabla::dtype_name(t)) + " has no DLPack type");
  }
}

nabla::DType nabla_dtype(DLDataType t) {
  if (t.lanes == 1) {
    if (t.code == kDLFloat && t.bits == 32) return nabla::kFloat32;
    if (t.code == kDLFloat && t.bits == 64) return nabla::kFloat64;
    if (t.code == kDLFloat && t.bits == 16) return nabla::kFloat16;
    if (t.code == kDLBfloat && t.bits == 16) return nabla::kBFloat16;
    if (t.code == kDLInt && t.bits == 64) return nabla::kInt64;
    if (t.code == kDLInt && t.bits == 32) return nabla::kInt32;
    if (t.code == kDLUInt && t.bits == 8) return nabla::kUInt8;
    if (t.code == kDLBool && t.bits == 8) return nabla::kBool;
  }
  throw nabla::Error("nabla.from_dlpack: DLPack dtype (code " + std::to_string(t.code) + ", " +
                     std::to_string(t.bits) + " bits, " + std::to_string(t.lanes) +
                     " lanes) has no nabla dtype (expected float16/32/64, bfloat16, int32/64, uint8 or bool)");
}

// What an exported DLManagedTensor owns: the tensor (so its storage lives)
// and the shape and strides arrays it points at.
struct Exported {
  Tensor tensor;
  std::vector<int64_t> shape, strides;
  DLManagedTensor managed;
};

void delete_exported(DLManagedTensor* m) { delete static_cast<Exported*>(m->manager_ctx); }

// A capsule nobody consumed still owns its tensor (DLPack's rule: the
// consumer renames it "used_dltensor" and calls the deleter itself).
void capsule_destructor(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, "dltensor")) return;
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
  if (m && m->deleter) m->deleter(m);
}

py::capsule to_dlpack(const Tensor& t) {
  if (!t.device().is_cpu())
    throw nabla::Error("Tensor.__dlpack__: the tensor is on " + t.device().str() +
                       "; only CPU tensors are exported (call .cpu() first)");
  if (t.requires_grad())
    throw nabla::Error("Tensor.__dlpack__: the tensor requires grad; export t.detach()");
  auto* e = new Exported{t, {t.sizes().begin(), t.sizes().end()}, {t.strides().begin(), t.strides().end()}, {}};
  DLTensor& dl = e->managed.dl_tensor;
  dl.data = t.numel() == 0 ? nullptr : t.raw_data();
  dl.device = {kDLCPU, 0};
  dl.ndim = static_cast<int32_t>(t.dim());
  try {
    dl.dtype = dl_dtype(t.dtype());
  } catch (...) {
    delete e;
    throw;
  }
  dl.shape = e->shape.data();
  dl.strides = e->strides.data();
  dl.byte_offset = 0;
  e->managed.manager_ctx = e;
  e->managed.deleter = &delete_exported;
  PyObject* capsule = PyCapsule_New(&e->managed, "dltensor", &capsule_destructor);
  if (!capsule) {
    delete e;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(capsule);
}

// from_dlpack's storage "allocator": hands out the producer's buffer and,
// when the storage dies, calls the producer's deleter (which may need the GIL).
class DLPackOwner final : public nabla::Allocator {
 public:
  DLPackOwner(DLManagedTensor* m, void* data) : managed_(m), data_(data) {}
  void* allocate(std::size_t) override { return data_; }
  void deallocate(void*, std::size_t) noexcept override {
    if (managed_->deleter) {
      if (Py_IsInitialized()) {
        py::gil_scoped_acquire gil;
        managed_->deleter(managed_);
      }
      // else: the interpreter is gone, and with it whatever the producer kept.
    }
    delete this;
  }

 private:
  DLManagedTensor* managed_;
  void* data_;
};

Tensor from_dlpack(py::object obj) {
  py::object capsule = obj;
  if (py::hasattr(obj, "__dlpack__")) {
    if (py::hasattr(obj, "__dlpack_device__")) {
      auto dev = obj.attr("__dlpack_device__")().cast<std::pair<int, int>>();
      if (dev.first != kDLCPU && dev.first != kDLCUDAHost)
        throw nabla::Error("nabla.from_dlpack: the " + std::string(py::str(py::type::of(obj).attr("__name__"))) +
                           " is on DLPack device type " + std::to_string(dev.first) +
                           "; only CPU memory (type 1) is imported (copy it to the host first)");
    }
    capsule = obj.attr("__dlpack__")();
  }
  if (!PyCapsule_CheckExact(capsule.ptr()) || !PyCapsule_IsValid(capsule.ptr(), "dltensor"))
    throw nabla::Error("nabla.from_dlpack: expected an object with __dlpack__ or an unused \"dltensor\" capsule, got " +
                       std::string(py::str(py::type::of(obj).attr("__name__"))));
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  const DLTensor& dl = m->dl_tensor;
  if (dl.device.device_type != kDLCPU && dl.device.device_type != kDLCUDAHost)
    throw nabla::Error("nabla.from_dlpack: the tensor is on DLPack device type " +
                       std::to_string(dl.device.device_type) + "; only CPU memory (type 1) is imported");
  const nabla::DType dtype = nabla_dtype(dl.dtype);
  nabla::Shape sizes, strides;
  int64_t span = 1, contiguous = 1;
  bool empty = false;
  for (int d = dl.ndim - 1; d >= 0; --d) {
    const int64_t size = dl.shape[d];
    const int64_t stride = dl.strides ? dl.strides[d] : contiguous;
    if (stride < 0)
      throw nabla::Error("nabla.from_dlpack: stride " + std::to_string(stride) + " of dim " + std::to_string(d) +
                         " is negative (nabla tensors have non-negative strides; pass a contiguous copy)");
    contiguous *= size;
    if (size == 0) empty = true;
    else span += (size - 1) * stride;
    sizes.insert(sizes.begin(), size);
    strides.insert(strides.begin(), stride);
  }
  const auto itemsize = static_cast<int64_t>(nabla::itemsize(dtype));
  void* data = static_cast<char*>(dl.data) + dl.byte_offset;
  // From here the tensor owns the producer's memory: the capsule is consumed.
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  auto storage = nabla::make_ref<nabla::Storage>(static_cast<std::size_t>(empty ? 0 : span * itemsize),
                                                 new DLPackOwner(m, data), false);
  return Tensor(nabla::make_ref<nabla::TensorImpl>(storage, sizes, strides, 0, dtype, nabla::kCPU));
}

}  // namespace

void bind_dlpack(py::module_& m, py::class_<Tensor>& t) {
  t.def("__dlpack__", [](const Tensor& x, py::args, py::kwargs) { return to_dlpack(x); },
        "A DLPack capsule sharing this CPU tensor's memory (stream and other keywords are accepted and unused: "
        "CPU memory needs no synchronization)")
      .def("__dlpack_device__", [](const Tensor& x) {
        if (!x.device().is_cpu())
          throw nabla::Error("Tensor.__dlpack_device__: the tensor is on " + x.device().str() +
                             "; only CPU tensors are exported (call .cpu() first)");
        return py::make_tuple(kDLCPU, 0);
      });
  m.def("from_dlpack", &from_dlpack, py::arg("tensor"),
        "A tensor sharing the memory of a DLPack producer (an object with __dlpack__, such as a NumPy array "
        "or a PyTorch tensor, or a \"dltensor\" capsule); CPU memory only.");
}

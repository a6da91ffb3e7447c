// nabla.Tensor: the C++ Tensor as a Python class, with NumPy interchange that
// shares memory both ways (from_numpy and Tensor.numpy()).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "casters.h"

namespace py = pybind11;
using nabla::Tensor;

namespace {

// from_numpy's storage "allocator": it hands out the array's own buffer once
// and, when the storage dies, drops the reference that kept the array alive.
// So the array outlives every tensor and view made over it, and nothing is copied.
class NumpyOwner final : public nabla::Allocator {
 public:
  NumpyOwner(py::array array) : array_(std::move(array)) {}
  void* allocate(std::size_t) override { return array_.mutable_data(); }
  void deallocate(void*, std::size_t) noexcept override {
    if (Py_IsInitialized()) {
      py::gil_scoped_acquire gil;
      array_ = py::array();
    } else {
      array_.release();  // the interpreter is gone: nothing left to free through it
    }
    delete this;
  }

 private:
  py::array array_;
};

nabla::DType dtype_of(const py::dtype& d) {
  const char kind = d.kind();
  const auto size = d.itemsize();
  if (kind == 'f' && size == 4) return nabla::kFloat32;
  if (kind == 'f' && size == 8) return nabla::kFloat64;
  if (kind == 'f' && size == 2) return nabla::kFloat16;
  if (kind == 'i' && size == 8) return nabla::kInt64;
  if (kind == 'i' && size == 4) return nabla::kInt32;
  if (kind == 'u' && size == 1) return nabla::kUInt8;
  if (kind == 'b') return nabla::kBool;
  throw nabla::Error("nabla.from_numpy: NumPy dtype " + std::string(py::repr(d)) +
                     " has no nabla dtype (expected float16/32/64, int32/64, uint8 or bool)");
}

const char* numpy_format(nabla::DType t) {
  switch (t) {
    case nabla::kFloat32: return "float32";
    case nabla::kFloat64: return "float64";
    case nabla::kFloat16: return "float16";
    case nabla::kInt64: return "int64";
    case nabla::kInt32: return "int32";
    case nabla::kUInt8: return "uint8";
    case nabla::kBool: return "bool";
    default: throw nabla::Error("Tensor.numpy: dtype " + std::string(nabla::dtype_name(t)) + " has no NumPy dtype");
  }
}

}  // namespace

Tensor from_numpy(py::array array) {
  if (!array.writeable())
    throw nabla::Error("nabla.from_numpy: the array is read-only; nabla tensors share and may write its memory "
                       "(pass array.copy())");
  const nabla::DType dtype = dtype_of(array.dtype());
  const auto itemsize = static_cast<int64_t>(array.itemsize());
  nabla::Shape sizes, strides;
  int64_t span = 1;  // elements from the first to one past the last
  bool empty = false;
  for (py::ssize_t d = 0; d < array.ndim(); ++d) {
    const int64_t size = array.shape(d), stride = array.strides(d);
    if (stride < 0 || stride % itemsize != 0)
      throw nabla::Error("nabla.from_numpy: stride " + std::to_string(stride) + " of dim " + std::to_string(d) +
                         " is negative or not a multiple of the item size " + std::to_string(itemsize) +
                         " (pass np.ascontiguousarray(a))");
    sizes.push_back(size);
    strides.push_back(stride / itemsize);
    if (size == 0) empty = true;
    else span += (size - 1) * (stride / itemsize);
  }
  const auto nbytes = static_cast<std::size_t>(empty ? 0 : span * itemsize);
  auto storage = nabla::make_ref<nabla::Storage>(nbytes, new NumpyOwner(array), false);
  return Tensor(nabla::make_ref<nabla::TensorImpl>(storage, sizes, strides, 0, dtype, nabla::kCPU));
}

// A CPU tensor's array shares its memory; a device tensor's is a copy on the host.
py::array to_numpy(const Tensor& t) {
  if (t.requires_grad())
    throw nabla::Error("Tensor.numpy: the tensor requires grad; call .detach().numpy()");
  if (!t.device().is_cpu()) return to_numpy(t.cpu());
  const auto itemsize = static_cast<py::ssize_t>(nabla::itemsize(t.dtype()));
  std::vector<py::ssize_t> shape(t.sizes().begin(), t.sizes().end()), strides;
  for (int64_t s : t.strides()) strides.push_back(s * itemsize);
  // The capsule holds a Tensor, so the storage lives as long as the array.
  py::capsule owner(new Tensor(t), [](void* p) { delete static_cast<Tensor*>(p); });
  return py::array(py::dtype(numpy_format(t.dtype())), shape, strides, t.raw_data(), owner);
}

// Python's index expression (int, slice, None, Ellipsis or a tuple of them) as nabla TensorIndex.
std::vector<nabla::TensorIndex> to_indices(py::handle key) {
  std::vector<nabla::TensorIndex> out;
  auto one = [&](py::handle k) {
    if (PyLong_Check(k.ptr()) && !PyBool_Check(k.ptr())) {
      out.emplace_back(k.cast<int64_t>());
    } else if (PySlice_Check(k.ptr())) {
      auto s = py::reinterpret_borrow<py::slice>(k);
      auto bound = [](py::object o) -> nabla::SliceBound {
        if (o.is_none()) return nabla::None;
        return o.cast<int64_t>();
      };
      py::object step = s.attr("step");
      out.emplace_back(nabla::Slice(bound(s.attr("start")), bound(s.attr("stop")),
                                    step.is_none() ? 1 : step.cast<int64_t>()));
    } else if (k.is_none()) {
      out.emplace_back(nabla::None);
    } else if (k.ptr() == Py_Ellipsis) {
      out.emplace_back(nabla::Ellipsis);
    } else {
      throw nabla::Error("Tensor.__getitem__: index of type " + py::str(py::type::of(k)).cast<std::string>() +
                         " is not supported (expected int, slice, None, Ellipsis or a tuple of them)");
    }
  };
  if (PyTuple_Check(key.ptr())) {
    for (py::handle k : py::reinterpret_borrow<py::tuple>(key)) one(k);
  } else {
    one(key);
  }
  return out;
}

// x.view(2, 3) and x.view((2, 3)) alike, as in PyTorch.
nabla::IntList int_list(const py::args& args) {
  if (args.size() == 1 && !PyLong_Check(args[0].ptr())) return args[0].cast<nabla::IntList>();
  return py::handle(args).cast<nabla::IntList>();
}

py::object item(const Tensor& t) {
  if (t.numel() != 1)
    throw nabla::Error("Tensor.item: the tensor has " + std::to_string(t.numel()) + " elements, expected 1");
  if (t.is_floating_point()) return py::float_(t.item<double>());
  if (t.dtype() == nabla::kBool) return py::bool_(t.item<bool>());
  return py::int_(t.item<int64_t>());
}

void bind_dlpack(py::module_& m, py::class_<Tensor>& t);

void bind_tensor(py::module_& m) {
  py::enum_<nabla::DType>(m, "dtype")
      .value("bool", nabla::kBool).value("uint8", nabla::kUInt8).value("int32", nabla::kInt32)
      .value("int64", nabla::kInt64).value("float16", nabla::kFloat16).value("bfloat16", nabla::kBFloat16)
      .value("float32", nabla::kFloat32).value("float64", nabla::kFloat64);

  py::class_<Tensor> t(m, "Tensor", py::dynamic_attr());
  t.def(py::init<>())
      .def(py::init<const Tensor&>(), py::arg("data"), "A tensor sharing `data`'s storage (used by nn.Parameter)")
      .def_property_readonly("shape", [](const Tensor& x) { return nabla::IntList(x.sizes()); })
      .def("size", [](const Tensor& x, std::optional<int64_t> dim) -> py::object {
             if (dim) return py::int_(x.size(*dim));
             return py::cast(nabla::IntList(x.sizes()));
           }, py::arg("dim") = py::none())
      .def("stride", [](const Tensor& x) { return nabla::IntList(x.strides()); })
      .def("dim", &Tensor::dim)
      .def_property_readonly("ndim", &Tensor::dim)
      .def("numel", &Tensor::numel)
      .def_property_readonly("dtype", &Tensor::dtype)
      .def_property_readonly("device", &Tensor::device)
      .def("is_contiguous", &Tensor::is_contiguous)
      .def("__len__", [](const Tensor& x) {
        if (x.dim() == 0) throw py::type_error("len() of a 0-d tensor");
        return x.size(0);
      })
      .def("__repr__", &Tensor::str)
      .def("item", &item)
      .def("tolist", [](const Tensor& x) { return to_numpy(x.detach().contiguous()).attr("tolist")(); })
      .def("numpy", &to_numpy)
      .def("__array__", [](const Tensor& x, py::object dtype) {
             py::object a = to_numpy(x.requires_grad() ? x.detach() : x);
             return dtype.is_none() ? a : a.attr("astype")(dtype);
           }, py::arg("dtype") = py::none())
      // autograd
      .def_property("requires_grad", &Tensor::requires_grad,
                    [](Tensor& x, bool r) { x.requires_grad_(r); })
      .def("requires_grad_", [](Tensor& x, bool r) -> Tensor& { return x.requires_grad_(r); },
           py::arg("requires_grad") = true, py::return_value_policy::reference_internal)
      .def_property("grad", [](const Tensor& x) -> py::object {
             Tensor g = x.grad();
             return g.defined() ? py::cast(g) : py::none();
           }, [](Tensor& x, py::object g) { x.set_grad(g.is_none() ? Tensor() : g.cast<Tensor>()); })
      .def_property_readonly("is_leaf", &Tensor::is_leaf)
      .def("backward", [](const Tensor& x, std::optional<Tensor> gradient, bool retain_graph, bool create_graph) {
             x.backward(gradient.value_or(Tensor()), retain_graph, create_graph);
           }, py::arg("gradient") = py::none(), py::arg("retain_graph") = false, py::arg("create_graph") = false)
      .def("detach", &Tensor::detach)
      .def("retain_grad", &Tensor::retain_grad)
      // conversion and copies
      .def("to", [](const Tensor& x, nabla::DType d) { return x.to(d); }, py::arg("dtype"))
      .def("to", [](const Tensor& x, nabla::Device d) { return x.to(d); }, py::arg("device"))
      .def("float", [](const Tensor& x) { return x.to(nabla::kFloat32); })
      .def("double", [](const Tensor& x) { return x.to(nabla::kFloat64); })
      .def("long", [](const Tensor& x) { return x.to(nabla::kInt64); })
      .def("cpu", &Tensor::cpu)
      .def("_set_data", [](Tensor& x, const Tensor& value) { x = value; },
           "Points this Python object at `value`'s tensor (Module.to moves parameters in place this way)")
      .def("clone", &Tensor::clone)
      .def("contiguous", &Tensor::contiguous)
      // shape
      .def("view", [](const Tensor& x, py::args sizes) { return x.view(int_list(sizes)); })
      .def("reshape", [](const Tensor& x, py::args sizes) { return x.reshape(int_list(sizes)); })
      .def("permute", [](const Tensor& x, py::args dims) { return x.permute(int_list(dims)); })
      .def("transpose", &Tensor::transpose, py::arg("dim0"), py::arg("dim1"))
      .def("t", &Tensor::t)
      .def_property_readonly("T", [](const Tensor& x) { return x.dim() < 2 ? x : x.t(); })
      .def("squeeze", [](const Tensor& x, std::optional<int64_t> dim) { return dim ? x.squeeze(*dim) : x.squeeze(); },
           py::arg("dim") = py::none())
      .def("unsqueeze", &Tensor::unsqueeze, py::arg("dim"))
      .def("flatten", &Tensor::flatten, py::arg("start_dim") = 0, py::arg("end_dim") = -1)
      .def("expand", [](const Tensor& x, py::args sizes) { return x.expand(int_list(sizes)); })
      .def("__getitem__", [](const Tensor& x, py::handle key) { return x.index(to_indices(key)); })
      .def("__setitem__", [](Tensor& x, py::handle key, const Tensor& v) { x.index(to_indices(key)).copy_(v); })
      .def("__setitem__", [](Tensor& x, py::handle key, nabla::Scalar v) { x.index(to_indices(key)).fill_(v); })
      // elementwise
      .def("neg", &Tensor::neg).def("abs", &Tensor::abs).def("exp", &Tensor::exp).def("log", &Tensor::log)
      .def("sqrt", &Tensor::sqrt).def("tanh", &Tensor::tanh).def("sigmoid", &Tensor::sigmoid)
      .def("relu", &Tensor::relu).def("sin", &Tensor::sin).def("cos", &Tensor::cos)
      .def("pow", py::overload_cast<const nabla::Scalar&>(&Tensor::pow, py::const_), py::arg("exponent"))
      .def("pow", py::overload_cast<const Tensor&>(&Tensor::pow, py::const_), py::arg("exponent"))
      .def("clamp", [](const Tensor& x, std::optional<nabla::Scalar> min, std::optional<nabla::Scalar> max) {
             return x.clamp(min, max);
           }, py::arg("min") = py::none(), py::arg("max") = py::none())
      .def("clamp_", [](Tensor& x, std::optional<nabla::Scalar> min, std::optional<nabla::Scalar> max) -> Tensor& {
             return x.clamp_(min, max);
           }, py::arg("min") = py::none(), py::arg("max") = py::none(), py::return_value_policy::reference_internal)
      .def("softmax", &Tensor::softmax, py::arg("dim"))
      .def("log_softmax", &Tensor::log_softmax, py::arg("dim"))
      // reductions
      .def("sum", [](const Tensor& x, std::optional<nabla::IntList> dim, bool keepdim) {
             return dim ? x.sum(*dim, keepdim) : x.sum();
           }, py::arg("dim") = py::none(), py::arg("keepdim") = false)
      .def("mean", [](const Tensor& x, std::optional<nabla::IntList> dim, bool keepdim) {
             return dim ? x.mean(*dim, keepdim) : x.mean();
           }, py::arg("dim") = py::none(), py::arg("keepdim") = false)
      .def("max", [](const Tensor& x) { return x.max(); })
      .def("min", [](const Tensor& x) { return x.min(); })
      .def("argmax", &Tensor::argmax, py::arg("dim") = py::none(), py::arg("keepdim") = false)
      // linear algebra
      .def("maximum", py::overload_cast<const Tensor&>(&Tensor::maximum, py::const_), py::arg("other"))
      .def("maximum", py::overload_cast<const nabla::Scalar&>(&Tensor::maximum, py::const_), py::arg("other"))
      .def("minimum", py::overload_cast<const Tensor&>(&Tensor::minimum, py::const_), py::arg("other"))
      .def("minimum", py::overload_cast<const nabla::Scalar&>(&Tensor::minimum, py::const_), py::arg("other"))
      .def("__bool__", [](const Tensor& x) {
        if (x.numel() != 1)
          throw nabla::Error("Tensor.__bool__: the truth value of a tensor with " + std::to_string(x.numel()) +
                             " elements is ambiguous (expected 1 element; use .any() or .all())");
        return x.item<double>() != 0;  // bool and integer tensors convert exactly here
      })
      .def("mm", &Tensor::mm).def("matmul", &Tensor::matmul)
      .def("__matmul__", &Tensor::matmul)
      .def("__rmatmul__", [](const Tensor& x, const Tensor& o) { return o.matmul(x); })
      // in place
      .def("add_", [](Tensor& x, const Tensor& o) -> Tensor& { return x.add_(o); }, py::return_value_policy::reference_internal)
      .def("add_", [](Tensor& x, nabla::Scalar o) -> Tensor& { return x.add_(o); }, py::return_value_policy::reference_internal)
      .def("sub_", [](Tensor& x, const Tensor& o) -> Tensor& { return x.sub_(o); }, py::return_value_policy::reference_internal)
      .def("sub_", [](Tensor& x, nabla::Scalar o) -> Tensor& { return x.sub_(o); }, py::return_value_policy::reference_internal)
      .def("mul_", [](Tensor& x, const Tensor& o) -> Tensor& { return x.mul_(o); }, py::return_value_policy::reference_internal)
      .def("mul_", [](Tensor& x, nabla::Scalar o) -> Tensor& { return x.mul_(o); }, py::return_value_policy::reference_internal)
      .def("div_", [](Tensor& x, const Tensor& o) -> Tensor& { return x.div_(o); }, py::return_value_policy::reference_internal)
      .def("div_", [](Tensor& x, nabla::Scalar o) -> Tensor& { return x.div_(o); }, py::return_value_policy::reference_internal)
      .def("zero_", &Tensor::zero_, py::return_value_policy::reference_internal)
      .def("fill_", &Tensor::fill_, py::return_value_policy::reference_internal)
      .def("copy_", &Tensor::copy_, py::return_value_policy::reference_internal)
      .def("allclose", &Tensor::allclose, py::arg("other"), py::arg("rtol") = 1e-5, py::arg("atol") = 1e-8,
           py::arg("equal_nan") = false)
      .def("equal", &Tensor::equal);

  // Operators: a Tensor or a Python number on either side.
#define NABLA_BINARY(py_name, py_rname, expr)                                                   \
  t.def(py_name, [](const Tensor& a, const Tensor& b) { return expr; }, py::is_operator())        \
      .def(py_name, [](const Tensor& a, nabla::Scalar b) { return expr; }, py::is_operator())
  NABLA_BINARY("__add__", "", a + b);
  NABLA_BINARY("__sub__", "", a - b);
  NABLA_BINARY("__mul__", "", a * b);
  NABLA_BINARY("__truediv__", "", a / b);
  NABLA_BINARY("__eq__", "", a.eq(b));
  NABLA_BINARY("__ne__", "", a.ne(b));
  NABLA_BINARY("__lt__", "", a.lt(b));
  NABLA_BINARY("__le__", "", a.le(b));
  NABLA_BINARY("__gt__", "", a.gt(b));
  NABLA_BINARY("__ge__", "", a.ge(b));
  NABLA_BINARY("__pow__", "", a.pow(b));
#undef NABLA_BINARY
  t.def("__radd__", [](const Tensor& a, nabla::Scalar b) { return a + b; }, py::is_operator())
      .def("__rsub__", [](const Tensor& a, nabla::Scalar b) { return a.neg() + b; },
           py::is_operator())
      .def("__rmul__", [](const Tensor& a, nabla::Scalar b) { return a * b; }, py::is_operator())
      .def("__rtruediv__", [](const Tensor& a, nabla::Scalar b) { return a.reciprocal() * b; }, py::is_operator())
      .def("__neg__", &Tensor::neg)
      .def("__iadd__", [](Tensor& a, const Tensor& b) -> Tensor& { return a += b; }, py::is_operator(), py::return_value_policy::reference_internal)
      .def("__iadd__", [](Tensor& a, nabla::Scalar b) -> Tensor& { return a += b; }, py::is_operator(), py::return_value_policy::reference_internal)
      .def("__isub__", [](Tensor& a, const Tensor& b) -> Tensor& { return a -= b; }, py::is_operator(), py::return_value_policy::reference_internal)
      .def("__isub__", [](Tensor& a, nabla::Scalar b) -> Tensor& { return a -= b; }, py::is_operator(), py::return_value_policy::reference_internal)
      .def("__imul__", [](Tensor& a, const Tensor& b) -> Tensor& { return a *= b; }, py::is_operator(), py::return_value_policy::reference_internal)
      .def("__imul__", [](Tensor& a, nabla::Scalar b) -> Tensor& { return a *= b; }, py::is_operator(), py::return_value_policy::reference_internal)
      .def("__itruediv__", [](Tensor& a, const Tensor& b) -> Tensor& { return a /= b; }, py::is_operator(), py::return_value_policy::reference_internal)
      .def("__itruediv__", [](Tensor& a, nabla::Scalar b) -> Tensor& { return a /= b; }, py::is_operator(), py::return_value_policy::reference_internal);
  t.attr("__hash__") = py::cpp_function([](const Tensor& x) { return reinterpret_cast<std::uintptr_t>(x.impl()); },
                                        py::is_method(t));

  bind_dlpack(m, t);
  m.def("from_numpy", &from_numpy, py::arg("array"),
        "A tensor over the array's memory (no copy): writes through either are seen by both.");
}

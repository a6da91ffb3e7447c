// The _nabla extension module: factories, grad mode, nn.functional, optim and
// safetensors over the C++ library. Python-side conveniences (no_grad,
// nn.Module, tensor()) live in python/nabla/*.py on top of these.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "casters.h"
#include "nabla/cuda.h"
#include "nabla/opencl.h"

namespace py = pybind11;
using nabla::Tensor;

void bind_tensor(py::module_& m);
void bind_graph(py::module_& m);
void bind_compile(py::module_& m);
#ifdef NABLA_PYTHON_ONNX
void bind_onnx(py::module_& m);
#endif

namespace {

nabla::TensorOptions options(std::optional<nabla::DType> dtype, bool requires_grad) {
  nabla::TensorOptions o;
  if (dtype) o = o.dtype(*dtype);
  return o.requires_grad(requires_grad);
}

// Keyword options as PyTorch spells them (lr=, momentum=, betas=(b1, b2), ...)
// become the C++ optimizer's option map.
nabla::optim::Options optim_options(const py::kwargs& kwargs) {
  nabla::optim::Options out;
  for (auto [key, value] : kwargs) {
    const auto name = key.cast<std::string>();
    if (name == "betas") {
      auto b = value.cast<std::pair<double, double>>();
      out["beta1"] = b.first;
      out["beta2"] = b.second;
    } else if (PyBool_Check(value.ptr())) {
      out[name] = value.ptr() == Py_True ? 1.0 : 0.0;
    } else {
      out[name] = value.cast<double>();
    }
  }
  return out;
}

template <class Opt>
void bind_optimizer(py::module_& optim, const char* name) {
  py::class_<Opt, nabla::optim::Optimizer>(optim, name)
      .def(py::init([](py::iterable params, py::kwargs kwargs) {
             std::vector<Tensor> list;
             for (py::handle p : params) list.push_back(p.cast<Tensor>());
             return std::make_unique<Opt>(std::move(list), optim_options(kwargs));
           }), py::arg("params"));
}

}  // namespace

PYBIND11_MODULE(_nabla, m) {
  m.doc() = "nabla's C++ core (see docs/python.md)";
  py::register_exception<nabla::Error>(m, "Error", PyExc_RuntimeError);
  bind_tensor(m);
  bind_graph(m);
  bind_compile(m);
#ifdef NABLA_PYTHON_ONNX
  bind_onnx(m);
  m.attr("has_onnx") = true;
#else
  m.attr("has_onnx") = false;
#endif

  // Devices are strings ("cpu", "opencl:0", "cuda:1"); device() checks and normalizes one.
  m.def("device", [](nabla::Device d) { return d; }, py::arg("spec"),
        "The device named by `spec` (\"cpu\", \"opencl:0\", \"cuda:1\"), checked, as its canonical string");
  auto backend = [&](const char* name, bool (*available)(), int (*count)(), std::string (*why)()) {
    auto sub = m.def_submodule(name);
    sub.def("is_available", available);
    sub.def("device_count", count);
    sub.def("unavailable_reason", why);
  };
  backend("cuda", &nabla::cuda::is_available, &nabla::cuda::device_count, &nabla::cuda::unavailable_reason);
  backend("opencl", &nabla::opencl::is_available, &nabla::opencl::device_count, &nabla::opencl::unavailable_reason);

  // factories (tensor() is Python: nabla/__init__.py)
  m.def("zeros", [](nabla::IntList size, std::optional<nabla::DType> dtype, bool rg) {
          return nabla::zeros(size, options(dtype, rg)); },
        py::arg("size"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("requires_grad") = false);
  m.def("ones", [](nabla::IntList size, std::optional<nabla::DType> dtype, bool rg) {
          return nabla::ones(size, options(dtype, rg)); },
        py::arg("size"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("requires_grad") = false);
  m.def("full", [](nabla::IntList size, nabla::Scalar value, std::optional<nabla::DType> dtype, bool rg) {
          return nabla::full(size, value, options(dtype, rg)); },
        py::arg("size"), py::arg("fill_value"), py::kw_only(), py::arg("dtype") = py::none(),
        py::arg("requires_grad") = false);
  m.def("randn", [](nabla::IntList size, std::optional<nabla::DType> dtype, bool rg) {
          return nabla::randn(size, options(dtype, rg)); },
        py::arg("size"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("requires_grad") = false);
  m.def("rand", [](nabla::IntList size, std::optional<nabla::DType> dtype, bool rg) {
          return nabla::rand(size, options(dtype, rg)); },
        py::arg("size"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("requires_grad") = false);
  m.def("arange", [](nabla::Scalar start, std::optional<nabla::Scalar> end, nabla::Scalar step,
                     std::optional<nabla::DType> dtype, bool rg) {
          auto o = options(dtype, rg);
          return end ? nabla::arange(start, *end, step, o) : nabla::arange(start, o); },
        py::arg("start"), py::arg("end") = py::none(), py::arg("step") = 1, py::kw_only(),
        py::arg("dtype") = py::none(), py::arg("requires_grad") = false);
  m.def("zeros_like", [](const Tensor& x) { return nabla::zeros_like(x); }, py::arg("input"));
  m.def("ones_like", [](const Tensor& x) { return nabla::ones_like(x); }, py::arg("input"));
  m.def("manual_seed", [](uint64_t seed) { nabla::manual_seed(seed); }, py::arg("seed"));

  m.def("set_num_threads", &nabla::set_num_threads, py::arg("threads"),
        "Threads of nabla's pool, OpenBLAS and oneDNN (as torch.set_num_threads)");
  m.def("get_num_threads", &nabla::get_num_threads);
  m.def("is_grad_enabled", &nabla::GradMode::is_enabled);
  m.def("set_grad_enabled", &nabla::GradMode::set_enabled, py::arg("enabled"));

  // nn.functional: the C++ ops, one call each.
  auto F = m.def_submodule("functional");
  F.def("linear", &nabla::linear, py::arg("input"), py::arg("weight"), py::arg("bias") = Tensor());
  F.def("conv2d", &nabla::conv2d, py::arg("input"), py::arg("weight"), py::arg("bias") = Tensor(),
        py::arg("stride") = nabla::IntList{1, 1}, py::arg("padding") = nabla::IntList{0, 0},
        py::arg("dilation") = nabla::IntList{1, 1}, py::arg("groups") = 1);
  F.def("max_pool2d", [](const Tensor& x, nabla::IntList k, std::optional<nabla::IntList> stride, nabla::IntList padding) {
          return nabla::max_pool2d(x, k, stride.value_or(nabla::IntList{}), padding); },
        py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0);
  F.def("relu", py::overload_cast<const Tensor&>(&nabla::relu), py::arg("input"));
  F.def("softmax", py::overload_cast<const Tensor&, int64_t>(&nabla::softmax), py::arg("input"), py::arg("dim"));
  F.def("log_softmax", py::overload_cast<const Tensor&, int64_t>(&nabla::log_softmax), py::arg("input"),
        py::arg("dim"));
  F.def("dropout", &nabla::dropout, py::arg("input"), py::arg("p") = 0.5, py::arg("training") = true);
  F.def("mse_loss", &nabla::mse_loss, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean");
  F.def("cross_entropy", [](const Tensor& input, const Tensor& target, std::optional<Tensor> weight,
                            int64_t ignore_index, const std::string& reduction, double label_smoothing) {
          return nabla::cross_entropy(input, target, weight.value_or(Tensor()), ignore_index, reduction,
                                      label_smoothing); },
        py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("ignore_index") = -100,
        py::arg("reduction") = "mean", py::arg("label_smoothing") = 0.0);

  // optim: the C++ optimizers (their fused updates) over a parameter list.
  auto optim = m.def_submodule("optim");
  py::class_<nabla::optim::Optimizer>(optim, "Optimizer")
      .def("step", &nabla::optim::Optimizer::step)
      .def("zero_grad", &nabla::optim::Optimizer::zero_grad, py::arg("set_to_none") = true)
      .def_property("lr", [](const nabla::optim::Optimizer& o) { return o.param_groups().at(0).lr(); },
                    [](nabla::optim::Optimizer& o, double lr) { for (auto& g : o.param_groups()) g.set_lr(lr); });
  bind_optimizer<nabla::optim::SGD>(optim, "SGD");
  bind_optimizer<nabla::optim::Adam>(optim, "Adam");
  bind_optimizer<nabla::optim::AdamW>(optim, "AdamW");

  // safetensors: a dict name -> tensor, written atomically.
  m.def("save_safetensors", [](const std::map<std::string, Tensor>& tensors, const std::string& path) {
          nabla::io::TensorDict dict(tensors.begin(), tensors.end());
          nabla::io::save_safetensors(path, dict);
        }, py::arg("tensors"), py::arg("path"));
  m.def("load_safetensors", [](const std::string& path) {
          py::dict out;
          for (auto& [name, t] : nabla::io::load_safetensors(path)) out[py::str(name)] = t;
          return out;
        }, py::arg("path"));
}

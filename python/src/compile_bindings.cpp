// nabla.compile(fn) from Python: the C++ nabla::compile over a Python
// function of tensors. The function runs only while a new input signature is
// traced (its nabla ops then add graph nodes); later calls with that
// signature run the cached Session without entering Python. Training steps
// trace as in C++: optimizer.zero_grad(), loss.backward() and
// optimizer.step() inside fn become graph gradients and the optimizer's own
// update (docs/python.md, "compile()"; docs/graph.md, "compile()").
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "casters.h"

namespace py = pybind11;
using nabla::Tensor;

namespace {

// The Python function's results as the C++ function's: one Tensor, or a
// tuple/list of Tensors. `single` remembers which, so that calls return the
// same shape of result the Python function did.
std::vector<Tensor> results(const py::object& r, bool& single, const std::string& name) {
  if (py::isinstance<Tensor>(r)) {
    single = true;
    return {r.cast<Tensor>()};
  }
  if (py::isinstance<py::tuple>(r) || py::isinstance<py::list>(r)) {
    single = false;
    std::vector<Tensor> out;
    for (py::handle item : r) {
      if (!py::isinstance<Tensor>(item))
        throw nabla::Error("nabla.compile(" + name + "): the function returned a sequence holding a " +
                           std::string(py::str(py::type::of(item).attr("__name__"))) + "; expected Tensors only");
      out.push_back(item.cast<Tensor>());
    }
    if (out.empty()) throw nabla::Error("nabla.compile(" + name + "): the function returned an empty sequence");
    return out;
  }
  throw nabla::Error("nabla.compile(" + name + "): the function returned " +
                     std::string(py::str(py::type::of(r).attr("__name__"))) +
                     "; expected a Tensor or a tuple/list of Tensors");
}

struct Compiled {
  nabla::CompiledFunction fn;
  std::shared_ptr<bool> single;
  std::string name;
};

std::vector<Tensor> inputs_of(const Compiled& c, const py::args& args) {
  std::vector<Tensor> inputs;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (!py::isinstance<Tensor>(args[i]))
      throw nabla::Error("nabla.compile(" + c.name + "): argument " + std::to_string(i) + " is a " +
                         std::string(py::str(py::type::of(args[i]).attr("__name__"))) +
                         "; a compiled function takes Tensors only (close over other values)");
    inputs.push_back(args[i].cast<Tensor>());
  }
  return inputs;
}

}  // namespace

void bind_compile(py::module_& m) {
  py::class_<Compiled>(m, "CompiledFunction")
      .def("__call__", [](const Compiled& c, py::args args) -> py::object {
             std::vector<Tensor> out = c.fn(inputs_of(c, args));
             if (*c.single) return py::cast(out.at(0));
             return py::cast(out);
           })
      .def_property_readonly("num_traces", [](const Compiled& c) { return c.fn.num_traces(); })
      .def_property_readonly("num_calls", [](const Compiled& c) { return c.fn.num_calls(); })
      .def("signatures", [](const Compiled& c) { return c.fn.signatures(); })
      .def("graph_text", [](const Compiled& c, py::args args) { return c.fn.graph_text(inputs_of(c, args)); })
      .def("plan_text", [](const Compiled& c, py::args args) { return c.fn.plan_text(inputs_of(c, args)); });

  m.def("compile", [](py::function f) {
          auto single = std::make_shared<bool>(true);
          std::string name = py::hasattr(f, "__qualname__") ? py::str(f.attr("__qualname__")).cast<std::string>()
                                                             : std::string(py::str(py::repr(f)));
          // The tracer calls fn from the calling (Python) thread, which holds the GIL.
          nabla::TensorsFn fn = [f, single, name](const std::vector<Tensor>& inputs) {
            py::tuple args(inputs.size());
            for (std::size_t i = 0; i < inputs.size(); ++i) args[i] = py::cast(inputs[i]);
            return results(f(*args), *single, name);
          };
          return Compiled{nabla::compile(std::move(fn)), single, name};
        }, py::arg("fn"),
        "A callable that traces fn (a function of Tensors returning a Tensor or a tuple of them) once per input "
        "signature and runs the traced graph's Session after (docs/python.md, compile()).");
}

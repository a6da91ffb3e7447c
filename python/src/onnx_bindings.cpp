// nabla.onnx from Python (built when libnabla_onnx is: NABLA_ONNX): export a
// Python function or Module traced on example inputs, or a graph's fetches
// (with a Session's trained variables), to ONNX; import an ONNX model as a
// nabla.graph.Graph with its inputs and outputs. See docs/python.md, "ONNX".
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "casters.h"
#include "nabla/graph/session.h"
#include "nabla/onnx/export.h"
#include "nabla/onnx/import.h"

namespace py = pybind11;
using nabla::Tensor;

namespace {

nabla::onnx::ExportOptions export_options(std::optional<std::vector<std::string>> output_names) {
  nabla::onnx::ExportOptions o;
  if (output_names) o.output_names = *output_names;
  return o;
}

}  // namespace

void bind_onnx(py::module_& m) {
  auto o = m.def_submodule("onnx", "ONNX export and import (docs/python.md, docs/onnx.md)");
  // The Python side (nabla/onnx.py) puts a Module in eval mode and passes its forward here.
  o.def("export_function", [](py::function f, const std::vector<Tensor>& example_inputs,
                              const std::filesystem::path& path, std::optional<std::vector<std::string>> output_names) {
          nabla::TensorsFn fn = [f](const std::vector<Tensor>& inputs) {
            py::tuple args(inputs.size());
            for (std::size_t i = 0; i < inputs.size(); ++i) args[i] = py::cast(inputs[i]);
            py::object r = f(*args);
            if (py::isinstance<Tensor>(r)) return std::vector<Tensor>{r.cast<Tensor>()};
            if (!py::isinstance<py::tuple>(r) && !py::isinstance<py::list>(r))
              throw nabla::Error("nabla.onnx.export: the function returned " +
                                 std::string(py::str(py::type::of(r).attr("__name__"))) +
                                 "; expected a Tensor or a tuple/list of Tensors");
            return r.cast<std::vector<Tensor>>();
          };
          nabla::onnx::export_function(fn, example_inputs, path.string(), export_options(output_names));
        }, py::arg("fn"), py::arg("example_inputs"), py::arg("path"), py::arg("output_names") = py::none());
  o.def("export_graph", [](const nabla::graph::Graph& g, const std::vector<Tensor>& fetches,
                           const std::filesystem::path& path, const nabla::graph::Session* session, std::optional<std::vector<std::string>> output_names) {
          nabla::onnx::export_graph(g, fetches, path.string(), export_options(output_names), session);
        }, py::arg("graph"), py::arg("fetches"), py::arg("path"), py::arg("session") = nullptr,
        py::arg("output_names") = py::none());

  py::class_<nabla::onnx::ImportedModel>(o, "ImportedModel")
      .def_property_readonly("graph", [](const nabla::onnx::ImportedModel& i) { return i.graph; })
      .def_property_readonly("inputs", [](const nabla::onnx::ImportedModel& i) { return i.inputs; },
                             "[(ONNX name, placeholder)] in the model's order")
      .def_property_readonly("outputs", [](const nabla::onnx::ImportedModel& i) { return i.outputs; },
                             "[(ONNX name, graph tensor)] in the model's order")
      .def_readonly("opset", &nabla::onnx::ImportedModel::opset);
  o.def("import_model", [](const std::filesystem::path& path) { return nabla::onnx::import_model(path.string()); },
        py::arg("path"));
  o.def("import_model_bytes", [](py::bytes data) {
          return nabla::onnx::import_model_bytes(std::string(data), "<bytes>"); }, py::arg("data"));
  o.def("imported_op_types", &nabla::onnx::imported_op_types);
}

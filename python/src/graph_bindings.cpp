// nabla.graph: static graphs and Sessions from Python (TensorFlow 1's shape:
// placeholders, variables, gradients, assign, Session.run(fetches, feed_dict)).
// Ops on a graph's symbolic tensors (placeholders, variables) add nodes to it,
// so the Tensor methods and operators build graphs as they run eager code.
// Nodes made here record this file, not the Python line, as their source
// location (std::source_location cannot be made for a Python frame); error
// messages still name the node.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "casters.h"
#include "nabla/graph/serialize.h"

namespace py = pybind11;
using nabla::Tensor;
namespace graph = nabla::graph;

Tensor from_numpy(py::array array);

namespace {

// A fed value: a Tensor, or anything NumPy turns into an array (shared when it can be).
Tensor feed_value(py::handle value) {
  if (py::isinstance<Tensor>(value)) return value.cast<Tensor>();
  py::module_ np = py::module_::import("numpy");
  return from_numpy(np.attr("array")(value, py::arg("copy") = false));
}

// A fetch or feed key: a graph tensor, or the name of one ("y_pred", "split:1"), as
// a loaded graph's users find its values.
Tensor graph_tensor(graph::Session& sess, py::handle key, const char* what) {
  if (py::isinstance<Tensor>(key)) return key.cast<Tensor>();
  if (py::isinstance<py::str>(key)) return sess.graph().tensor(key.cast<std::string>());
  throw nabla::Error(std::string("Session.run: ") + what + " must be graph tensors or their names, got " +
                     std::string(py::str(py::type::of(key))));
}

py::object run(graph::Session& sess, py::handle fetches, py::object feed_dict) {
  graph::Feeds feeds;
  if (!feed_dict.is_none()) {
    for (auto [key, value] : feed_dict.cast<py::dict>())
      feeds.emplace_back(graph_tensor(sess, key, "feed_dict keys"), feed_value(value));
  }
  auto value = [](const Tensor& t) -> py::object { return t.defined() ? py::cast(t) : py::none(); };
  if (py::isinstance<Tensor>(fetches) || py::isinstance<py::str>(fetches))
    return value(sess.run(std::vector<Tensor>{graph_tensor(sess, fetches, "fetches")}, feeds)[0]);
  std::vector<Tensor> list;
  for (py::handle f : fetches) list.push_back(graph_tensor(sess, f, "fetches"));
  py::list out;
  for (const Tensor& t : sess.run(list, feeds)) out.append(value(t));
  return out;
}

}  // namespace

void bind_graph(py::module_& m) {
  auto g = m.def_submodule("graph", "Static graphs and Sessions (docs/python.md, docs/graph.md)");
  py::class_<graph::Graph>(g, "Graph")
      .def(py::init<>())
      .def("placeholder", [](graph::Graph& self, nabla::IntList shape, nabla::DType dtype, const std::string& name) {
             return self.placeholder(dtype, shape, name); },
           py::arg("shape"), py::kw_only(), py::arg("dtype") = nabla::kFloat32, py::arg("name") = "placeholder")
      .def("variable", [](graph::Graph& self, const Tensor& initial_value, const std::string& name, bool trainable) {
             return self.variable(initial_value, name, trainable); },
           py::arg("initial_value"), py::kw_only(), py::arg("name") = "variable", py::arg("trainable") = true)
      .def("constant", [](graph::Graph& self, const Tensor& value, const std::string& name) {
             return self.constant(value, name); }, py::arg("value"), py::kw_only(), py::arg("name") = "const")
      .def("global_variables_initializer", [](graph::Graph& self) { return self.global_variables_initializer(); })
      .def("variables", &graph::Graph::variables, py::arg("trainable_only") = false)
      .def_property_readonly("num_nodes", &graph::Graph::num_nodes)
      .def("tensor", &graph::Graph::tensor, py::arg("name"),
           "The value of the node called `name` (\"name:k\": output k), as a loaded graph's users find it")
      .def("set_name", &graph::Graph::set_name, py::arg("tensor"), py::arg("name"),
           "Renames the node that makes `tensor` (so a saved graph's users find it by that name); returns tensor")
      .def("to_text", &graph::Graph::to_text)
      .def("save", [](const graph::Graph& self, const std::filesystem::path& path) { graph::save(self, path.string()); },
           py::arg("path"), "Writes the graph, every variable with its initial value, to a .nbg file (atomically)");
  g.def("load", [](const std::filesystem::path& path) { return graph::load(path.string()); }, py::arg("path"),
        "The graph saved in a .nbg file; its variables are uninitialized (run global_variables_initializer(), "
        "or use Session.load for a session holding the saved values)");

  g.def("gradients", [](py::handle ys, const std::vector<Tensor>& xs) {
          if (py::isinstance<Tensor>(ys)) return graph::gradients(ys.cast<Tensor>(), xs);
          return graph::gradients(ys.cast<std::vector<Tensor>>(), xs);
        }, py::arg("ys"), py::arg("xs"));
  g.def("assign", [](const Tensor& v, const Tensor& value) { return graph::assign(v, value); },
        py::arg("variable"), py::arg("value"));
  g.def("assign_add", [](const Tensor& v, const Tensor& value) { return graph::assign_add(v, value); },
        py::arg("variable"), py::arg("value"));
  g.def("assign_sub", [](const Tensor& v, const Tensor& value) { return graph::assign_sub(v, value); },
        py::arg("variable"), py::arg("value"));
  g.def("group", [](const std::vector<Tensor>& inputs) { return graph::group(inputs); }, py::arg("inputs"));

  py::class_<graph::Session>(g, "Session")
      .def(py::init([](const graph::Graph& g, nabla::Device device) {
             return device.is_cpu() ? new graph::Session(g) : new graph::Session(g, device); }),
           py::arg("graph"), py::arg("device") = nabla::Device(nabla::kCPU), py::keep_alive<1, 2>())
      .def_static("load", [](const std::filesystem::path& path, nabla::Device device) {
                    return graph::Session::load(path.string(), device); },
                  py::arg("path"), py::arg("device") = nabla::Device(nabla::kCPU),
                  "A session over the graph saved in a .nbg file, its variables holding the saved values")
      .def("save", [](const graph::Session& self, const std::filesystem::path& path) { self.save(path.string()); },
           py::arg("path"),
           "Writes the graph with this session's current variable values to a .nbg file (atomically)")
      .def_property_readonly("graph", &graph::Session::graph)
      .def_property_readonly("device", &graph::Session::device)
      .def("run", &run, py::arg("fetches"), py::arg("feed_dict") = py::none(),
           "Values of `fetches` (one tensor or a list) with placeholders fed from feed_dict "
           "({placeholder: Tensor or array}); None for a fetch with no value (group, initializer).")
      .def("variable_value", &graph::Session::variable_value, py::arg("variable"));
}

// ONNX export: nabla graphs, compiled (traced) functions and nn::Modules to
// ONNX models (opset 17), built with the ONNX library's own protobuf classes
// and checked by onnx::checker before the file is written (atomically). See
// docs/onnx.md.
//
//   onnx::export_module(*model, randn({1, 3, 224, 224}), "model.onnx");  // traced in eval mode
//   onnx::export_graph(g, {y}, "model.onnx", {}, &sess);   // placeholders become inputs
//
// Part of libnabla_onnx.so (CMake target nabla::onnx), so that libnabla.so
// does not depend on ONNX. Placeholders become the model's inputs, fetched
// values its outputs, variables and constants its initializers; an unknown
// dim (-1) becomes a symbolic dim (dim_param). An op without an ONNX form, or
// a node that has no meaning outside a Session (an assign, a training-mode
// batch norm or dropout), is a nabla::Error naming the op and the node.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "nabla/core/tensor.h"
#include "nabla/graph/compile.h"
#include "nabla/graph/graph.h"

namespace nabla::graph {
class Session;
}
namespace nabla::nn {
class Module;
}

namespace nabla::onnx {

struct ExportOptions {
  int64_t opset = 17;                 // the only one supported so far
  std::string graph_name = "nabla";   // GraphProto.name
  // Names for the model's outputs (default: the fetched nodes' names).
  std::vector<std::string> output_names;
};

// The ONNX model of the part of `g` that computes `fetches`, serialized
// (a ModelProto's bytes), after onnx::checker::check_model accepted it.
// Variables take their value in `session` when one is given (trained
// values), else their initial value.
std::string export_graph_bytes(const graph::Graph& g, const std::vector<Tensor>& fetches,
                               const ExportOptions& options = {}, const graph::Session* session = nullptr);

// The same, written atomically to `path`.
void export_graph(const graph::Graph& g, const std::vector<Tensor>& fetches, const std::string& path,
                  const ExportOptions& options = {}, const graph::Session* session = nullptr);

// Traces `fn` on inputs shaped like `example_inputs` (graph::trace, as
// compile() does) and exports the traced graph: the inputs are "input_0", ...
void export_function(const TensorsFn& fn, const std::vector<Tensor>& example_inputs, const std::string& path,
                     const ExportOptions& options = {});

// Traces module.forward in eval mode (PyTorch's torch.onnx.export does the
// same; the module's mode is restored afterwards) on an input shaped like
// `example_input` and exports it: parameters and buffers become initializers.
void export_module(nn::Module& module, const Tensor& example_input, const std::string& path,
                   const ExportOptions& options = {});

}  // namespace nabla::onnx

// ONNX import: an ONNX model (opset <= 17) becomes a nabla graph::Graph built
// through the public graph API, so it can be run by a Session, optimized,
// saved as .nbg or compiled like any other graph. See docs/onnx.md, "Import".
//
//   onnx::ImportedModel m = onnx::import_model("resnet18.onnx");
//   graph::Session sess(m.graph);
//   sess.run(sess.graph().global_variables_initializer());
//   Tensor y = sess.run(m.outputs[0].second, {{m.inputs[0].second, x}});
//
// The model's inputs become placeholders (a symbolic dim becomes an unknown
// dim, -1, unless InputShapes fixes it), float initializers become trainable variables (fine-tunable),
// other initializers and Constant nodes constants. Values that only describe
// shapes (Shape -> Gather -> Concat -> Reshape, as torch.onnx.export writes
// them) are computed while importing. The file is validated before use
// (onnx::checker, then every dim, attribute type, tensor size and index this
// importer reads); an operator without a converter is a nabla::Error naming
// the operator, its node and the opset.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "nabla/graph/graph.h"

namespace nabla::onnx {

struct ImportedModel {
  graph::Graph graph;
  // The model's graph inputs (those that are not initializers) and outputs,
  // by their ONNX names, in the model's order. Each placeholder and output
  // node is also named after its ONNX value, with ':' and '/' (which graph
  // names cannot hold) made '_', so a saved .nbg is run by those names; an
  // output whose name is taken keeps its generated one (graph.node_of(t).name).
  std::vector<std::pair<std::string, Tensor>> inputs;
  std::vector<std::pair<std::string, Tensor>> outputs;
  int64_t opset = 0;  // the default domain's opset the model declares
  // The model's metadata_props (key, value), in its order: e.g. PaddleOCR's
  // recognition models keep their character list under "character".
  std::vector<std::pair<std::string, std::string>> metadata;
};

// Shapes for some of the model's inputs, by ONNX name, that replace the dims
// the model declares: the graph is built for exactly those shapes. A model
// that computes shapes at run time (Shape of a value whose dims are
// symbolic, Resize by scales of a symbolic size, as Paddle2ONNX writes them)
// imports only so, since nabla computes shape arithmetic while importing.
// Each shape must have the input's rank and keep its fixed dims; a name that
// is not an input is an error.
using InputShapes = std::map<std::string, std::vector<int64_t>>;

// Imports the model in file `path`.
ImportedModel import_model(const std::string& path, const InputShapes& shapes = {});
// Imports a serialized ModelProto; `source` names it in errors.
ImportedModel import_model_bytes(const std::string& bytes, const std::string& source = "<bytes>",
                                 const InputShapes& shapes = {});

// The ONNX operator types the importer converts (sorted), for tests and docs.
std::vector<std::string> imported_op_types();

}  // namespace nabla::onnx

// `nabla export MODEL.nbg --onnx FILE.onnx`: graph::load, the outputs (the
// --fetch names, or every op value no node reads: a saved model's
// predictions and losses), onnx::export_graph with the saved variable values.
#include "export.h"

#include "nabla/core/error.h"
#include "nabla/graph/serialize.h"
#include "nabla/onnx/export.h"

namespace nabla::tool {

namespace {

// Op nodes none of whose outputs any node reads (a gradient read only by an
// optimizer's assign is read, so a training graph gives its loss and
// predictions, not its gradients).
std::vector<Tensor> unread_values(const graph::Graph& g) {
  const auto& nodes = g.data()->nodes;
  std::vector<bool> read(nodes.size(), false);
  for (const auto& n : nodes)
    for (const auto& in : n.inputs)
      if (in.node >= 0) read[static_cast<std::size_t>(in.node)] = true;
  std::vector<Tensor> out;
  for (std::size_t id = 0; id < nodes.size(); ++id) {
    const auto& n = nodes[id];
    if (n.kind != graph::NodeKind::Op || read[id] || n.metas.empty()) continue;
    for (std::size_t k = 0; k < n.metas.size(); ++k)
      out.push_back(graph::detail::value_tensor(g.data(), {static_cast<int>(id), static_cast<int>(k)}));
  }
  return out;
}

}  // namespace

void run_export(const ExportConfig& config, std::ostream& out) {
  graph::Graph g = graph::load(config.model);
  std::vector<Tensor> fetches;
  for (const auto& name : config.fetches) fetches.push_back(g.tensor(name));
  if (fetches.empty()) fetches = unread_values(g);
  NABLA_CHECK(!fetches.empty(), "nabla export: ", config.model,
              " has no op value that no node reads; name the outputs with --fetch NAME");
  onnx::export_graph(g, fetches, config.onnx);
  std::string names;
  for (const auto& t : fetches) names += (names.empty() ? "" : ", ") + g.node_of(t).name;
  out << "wrote " << config.onnx << " (ONNX opset 17) from " << config.model << ": outputs " << names << "\n";
}

}  // namespace nabla::tool

// `nabla run`: Session::load, named feeds from .npy, named fetches to
// .npy/.npz (see run.h).
#include "run.h"

#include <map>

#include "nabla/data/npy.h"
#include "nabla/data/npz.h"
#include "nabla/graph/serialize.h"
#ifdef NABLA_TOOL_ONNX
#include "nabla/onnx/import.h"
#endif

namespace nabla::tool {

namespace {

bool is_onnx(const std::string& path) {
  return path.size() >= 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
}

// An ONNX model (onnx::import_model) in a fresh Session with its variables
// initialized, built for the shapes of the arrays fed (so a model that
// computes shapes at run time, as Paddle2ONNX writes them, runs); `names`
// maps its inputs' and outputs' ONNX names to the graph's node names (which
// cannot hold ':' or '/').
graph::Session open_onnx(const RunConfig& config, const std::vector<std::pair<std::string, Tensor>>& fed,
                         std::map<std::string, std::string>& names) {
#ifdef NABLA_TOOL_ONNX
  onnx::InputShapes shapes;
  for (const auto& [name, value] : fed) shapes[name] = value.sizes().vec();
  onnx::ImportedModel m = onnx::import_model(config.model, shapes);
  graph::Graph g = m.graph;
  for (const auto& io : {m.inputs, m.outputs})
    for (const auto& [name, t] : io) names[name] = g.node_of(t).name;
  graph::Session sess(g, Device(config.device));
  sess.run(g.global_variables_initializer());
  return sess;
#else
  NABLA_CHECK(false, "nabla run: ", config.model, ": this build of nabla has no ONNX support (nabla_onnx was "
              "not built); install libonnx-dev and configure with -DNABLA_ONNX=ON");
  (void)fed;
  return graph::Session(graph::Graph());
#endif
}

}  // namespace

void run_graph(const RunConfig& config, std::ostream& out) {
  // .nbg: Session::load; .onnx: imported (docs/onnx.md, "Import").
  // An ONNX model is imported for the shapes fed, so its arrays are read first.
  std::map<std::string, std::string> names;
  std::vector<std::pair<std::string, Tensor>> fed;
  if (is_onnx(config.model))
    for (const auto& [given, file] : config.feeds) fed.emplace_back(given, data::read_npy(file));
  graph::Session sess = is_onnx(config.model) ? open_onnx(config, fed, names)
                                              : graph::Session::load(config.model, Device(config.device));
  auto graph_name = [&](const std::string& name) {
    auto it = names.find(name);
    return it == names.end() ? name : it->second;
  };
  graph::NamedFeeds feeds;
  for (const auto& [given, file] : config.feeds) {
    std::string name = graph_name(given);
    // Names are checked before reading the arrays, so a typo fails fast.
    NABLA_CHECK(sess.graph().node_of(sess.graph().tensor(name)).kind == graph::NodeKind::Placeholder,
                "nabla run: --feed ", given, ": '", given, "' is not a placeholder of ", config.model,
                "; only placeholders can be fed");
    feeds.emplace_back(name, fed.empty() ? data::read_npy(file) : fed[feeds.size()].second);
  }
  std::vector<std::string> fetches;
  for (const std::string& f : config.fetches) fetches.push_back(graph_name(f));
  std::vector<Tensor> values = sess.run(fetches, feeds);
  for (std::size_t i = 0; i < values.size(); ++i)
    NABLA_CHECK(values[i].defined(), "nabla run: --fetch ", config.fetches[i],
                " has no value (a group or an initializer); fetch a value");

  if (config.outs.empty()) {
    for (std::size_t i = 0; i < values.size(); ++i) out << config.fetches[i] << " = " << values[i] << "\n";
    return;
  }
  if (config.outs.size() == 1 && config.outs[0].size() >= 4 &&
      config.outs[0].compare(config.outs[0].size() - 4, 4, ".npz") == 0) {
    data::NpzArrays arrays;
    for (std::size_t i = 0; i < values.size(); ++i) arrays.emplace_back(config.fetches[i], values[i]);
    data::write_npz(config.outs[0], arrays);
    out << "wrote " << values.size() << " array(s) to " << config.outs[0] << "\n";
    return;
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    data::write_npy(config.outs[i], values[i]);
    out << ::nabla::detail::concat(config.fetches[i], ": ", values[i].dtype(), " ", values[i].sizes(), " -> ",
                                   config.outs[i], "\n");
  }
}

}  // namespace nabla::tool

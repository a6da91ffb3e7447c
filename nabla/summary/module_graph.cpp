#include "nabla/summary/module_graph.h"

#include <algorithm>
#include <map>
#include <vector>

#include "nabla/graph/trace.h"
#include "nabla/core/grad_mode.h"
#include "nabla/core/random.h"
#include "nabla/graph/node.h"
#include "nabla/nn/module.h"

namespace nabla::summary {
namespace {

// "features.0.weight" -> {"features.0", "weight"}; a top-level parameter has no module.
std::pair<std::string, std::string> split_name(const std::string& name) {
  std::size_t dot = name.rfind('.');
  if (dot == std::string::npos) return {"", name};
  return {name.substr(0, dot), name.substr(dot + 1)};
}

// `base`, or base_1, base_2, ... : the first name not taken in `g`.
std::string unused_name(const graph::GraphData& g, const std::string& base) {
  auto taken = [&](const std::string& n) { return std::binary_search(g.used_names.begin(), g.used_names.end(), n); };
  if (!taken(base)) return base;
  for (int i = 1;; ++i)
    if (std::string n = base + "_" + std::to_string(i); !taken(n)) return n;
}

}  // namespace

graph::Graph trace_module_graph(nn::Module& module, const Tensor& example_input) {
  NABLA_CHECK(example_input.defined(), "SummaryWriter::add_graph: the example input is an undefined tensor");
  // The graph shown is the inference one, traced in eval mode: no
  // training-time updates of running statistics (BatchNorm), no dropout. Showing the graph must not change the
  // model or the random stream (nabla train's resume is bit-exact): the
  // training flags, buffers and the generator are put back afterwards.
  const bool root_training = module.is_training();
  std::vector<std::pair<nn::ModulePtr, bool>> modes;
  for (const auto& [name, m] : module.named_modules()) modes.emplace_back(m, m->is_training());
  std::vector<std::pair<Tensor, Tensor>> saved;
  for (const auto& [name, b] : module.named_buffers())
    if (b.defined()) saved.emplace_back(b, b.detach().clone());
  const GeneratorState rng = default_generator().get_state();
  struct Restore {
    nn::Module& module;
    bool root_training;
    std::vector<std::pair<nn::ModulePtr, bool>>& modes;
    std::vector<std::pair<Tensor, Tensor>>& saved;
    const GeneratorState& rng;
    ~Restore() {
      module.train(root_training);  // recursive; then each submodule's own flag, parents first
      for (auto& [m, training] : modes) m->train(training);
      NoGradGuard no_grad;
      for (auto& [b, copy] : saved) b.copy_(copy);
      default_generator().set_state(rng);
    }
  } restore{module, root_training, modes, saved, rng};
  module.eval();
  graph::TracedGraph traced = graph::trace(
      [&module](const std::vector<Tensor>& xs) { return std::vector<Tensor>{module.forward(xs[0])}; },
      {example_input});
  graph::Graph& g = traced.graph;
  const std::shared_ptr<graph::GraphData>& data = g.data();

  // The module path and own name of each parameter and buffer, by tensor.
  std::map<const TensorImpl*, std::pair<std::string, std::string>> owner;
  for (const auto& [name, t] : module.named_parameters()) owner.emplace(t.impl(), split_name(name));
  for (const auto& [name, t] : module.named_buffers()) owner.emplace(t.impl(), split_name(name));

  // module_of[id]: the module whose parameters node id is computed from
  // alone ("" when none); only such nodes pass their module on to the ops
  // that read them.
  std::vector<std::string> module_of(data->nodes.size());
  std::vector<bool> parameter_only(data->nodes.size(), false);
  for (std::size_t id = 0; id < data->nodes.size(); ++id) {
    graph::Node& n = data->nodes[id];
    std::string name;
    if (n.kind == graph::NodeKind::Variable || n.kind == graph::NodeKind::Constant) {
      auto it = n.value.defined() ? owner.find(n.value.impl()) : owner.end();
      if (it == owner.end()) continue;
      const auto& [path, own] = it->second;
      module_of[id] = path;
      parameter_only[id] = true;
      name = path.empty() ? own : path + "/" + own;
    } else if (n.kind == graph::NodeKind::Op && !n.inputs.empty()) {
      bool all_parameters = true;
      for (const graph::ValueRef& in : n.inputs) {
        auto src = static_cast<std::size_t>(in.node);
        if (parameter_only[src] && module_of[id].empty()) module_of[id] = module_of[src];
        all_parameters = all_parameters && parameter_only[src] && module_of[src] == module_of[id];
      }
      parameter_only[id] = all_parameters && !module_of[id].empty();
      if (module_of[id].empty()) continue;
      name = module_of[id] + "/" + std::string(n.op ? n.op->name : "op");
    }
    if (name.empty() || name == n.name) continue;
    g.set_name(graph::detail::output_tensor(data, {static_cast<int>(id), 0}), unused_name(*data, name));
  }
  return std::move(traced.graph);
}

}  // namespace nabla::summary

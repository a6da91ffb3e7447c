// Finding graph values by name: Graph::tensor("dense/kernel"), "split:1" for
// output 1, and Session::run with names — what a loaded graph offers in place
// of the tensors the code that built it held.
#include <algorithm>
#include <charconv>

#include "nabla/graph/session.h"

namespace nabla::graph {

namespace {

// Names to show when a lookup fails: the placeholders first (what one feeds),
// then the others, at most `limit` in all.
std::string some_names(const GraphData& g, std::size_t limit) {
  std::string out;
  std::size_t shown = 0;
  for (int pass = 0; pass < 2; ++pass)
    for (const Node& n : g.nodes) {
      if ((n.kind == NodeKind::Placeholder) != (pass == 0)) continue;
      if (shown == limit) return out + ", ... (" + std::to_string(g.nodes.size()) + " nodes)";
      out += (shown++ ? ", " : "") + n.name;
    }
  return out.empty() ? "(none: the graph is empty)" : out;
}

}  // namespace

Tensor Graph::tensor(const std::string& name) const {
  const GraphData& g = *data_;
  auto find = [&](const std::string& n) -> int {
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
      if (g.nodes[i].name == n) return static_cast<int>(i);
    return -1;
  };
  // A whole name wins over "node:output", so a node may have ':' in its name.
  int id = find(name);
  int output = 0;
  if (id < 0) {
    auto colon = name.rfind(':');
    if (colon != std::string::npos && colon + 1 < name.size()) {
      const char* b = name.data() + colon + 1;
      const char* e = name.data() + name.size();
      auto [p, ec] = std::from_chars(b, e, output);
      if (ec == std::errc() && p == e && output >= 0) id = find(name.substr(0, colon));
    }
  }
  NABLA_CHECK(id >= 0, "Graph::tensor: no node called '", name, "'; nodes (placeholders first): ", some_names(g, 30));
  const Node& n = g.nodes[static_cast<std::size_t>(id)];
  const std::size_t outputs = n.metas.empty() ? 1 : n.metas.size();
  NABLA_CHECK(static_cast<std::size_t>(output) < outputs, "Graph::tensor: '", name, "' asks for output ", output,
              " of node ", describe(n), ", which has ", outputs, " output(s)");
  return detail::output_tensor(data_, {id, output});
}

Tensor Graph::set_name(const Tensor& t, const std::string& name) {
  Value* v = value_of(t);
  NABLA_CHECK(v && v->graph == data_, "Graph::set_name: expected a symbolic tensor of this graph");
  NABLA_CHECK(!name.empty() && name.find(':') == std::string::npos, "Graph::set_name: name '", name,
              "' must be non-empty and contain no ':' (':k' names output k)");
  Node& n = data_->nodes[static_cast<std::size_t>(v->ref.node)];
  if (n.name == name) return t;
  auto& used = data_->used_names;
  NABLA_CHECK(!std::binary_search(used.begin(), used.end(), name), "Graph::set_name: name '", name,
              "' is taken; names are unique");
  if (auto it = std::lower_bound(used.begin(), used.end(), n.name); it != used.end() && *it == n.name) used.erase(it);
  used.insert(std::upper_bound(used.begin(), used.end(), name), name);
  n.name = name;
  return t;
}

std::vector<Tensor> Session::run(const std::vector<std::string>& fetches, const NamedFeeds& feeds) {
  Graph g = graph();
  std::vector<Tensor> fetch_tensors;
  for (const std::string& f : fetches) fetch_tensors.push_back(g.tensor(f));
  Feeds feed_tensors;
  for (const auto& [name, value] : feeds) feed_tensors.emplace_back(g.tensor(name), value);
  return run(fetch_tensors, feed_tensors);
}

}  // namespace nabla::graph

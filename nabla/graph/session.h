// graph::Session: runs a Graph. run() computes only the nodes the fetches
// need, in dependency order, each op eagerly through the op table (no
// autograd). Variables live in the Session and persist across runs.
#pragma once
#include <cstdint>
#include <memory>
#include <source_location>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "nabla/graph/graph.h"

namespace nabla::graph {

// {placeholder, concrete value} pairs.
using Feeds = std::vector<std::pair<Tensor, Tensor>>;
// {value name, concrete value} pairs (names as Graph::tensor takes them).
using NamedFeeds = std::vector<std::pair<std::string, Tensor>>;

class Session {
 public:
  explicit Session(const Graph& graph);

  // Concrete values of `fetches`, in order; an undefined Tensor for a
  // no-value fetch (group, initializer). Values returned never alias a
  // variable, so later runs do not change them.
  std::vector<Tensor> run(const std::vector<Tensor>& fetches, const Feeds& feeds = {});
  Tensor run(const Tensor& fetch, const Feeds& feeds = {});
  // The same with values named ("y_pred", "split:1"; see Graph::tensor).
  std::vector<Tensor> run(const std::vector<std::string>& fetches, const NamedFeeds& feeds = {});

  // The graph this session runs (a handle: find a loaded graph's values by name).
  Graph graph() const { return Graph(graph_); }

  // Saved graphs (serialize.h): save() writes the graph with this session's
  // current variable values; load() returns a session whose variables hold
  // the saved values, ready to run.
  void save(const std::string& path) const;
  static Session load(const std::string& path);

  // The current value of a variable (a copy); a clear error if uninitialized.
  Tensor variable_value(const Tensor& variable) const;

  struct Stats {
    int64_t runs = 0;
    int64_t nodes_executed = 0;  // all kinds of node, over all runs
    int64_t ops_executed = 0;    // Op nodes only, over all runs
  };
  const Stats& stats() const { return stats_; }

 private:
  std::shared_ptr<GraphData> graph_;
  std::unordered_map<int, Tensor> variables_;  // node id -> current value
  Stats stats_;
};

}  // namespace nabla::graph

// graph::Graph: builds a static graph. Placeholders, constants and variables
// are symbolic tensors (sizes and dtype, no storage); applying any nabla op to
// them adds a node after the op's own shape/dtype inference, so build-time
// errors are the eager ones. Run a graph with graph::Session (session.h).
// See docs/graph.md.
#pragma once
#include <initializer_list>
#include <memory>
#include <optional>
#include <source_location>
#include <string>
#include <utility>
#include <vector>

#include "nabla/graph/node.h"

namespace nabla::graph {

// Nodes made by ops on symbolic tensors cannot see the caller's line (the op
// table's hook has no source_location). While a LocationScope lives, such
// nodes record the line where the scope was opened; outside one they record
// none. Graph API calls (placeholder, variable, assign, ...) always record
// their caller's line.
class LocationScope {
 public:
  explicit LocationScope(std::source_location loc = std::source_location::current());
  ~LocationScope();
  LocationScope(const LocationScope&) = delete;
  LocationScope& operator=(const LocationScope&) = delete;

 private:
  const std::source_location* prev_;
  std::source_location loc_;
};

class Graph {
 public:
  Graph();
  // A handle to the graph that symbolic tensor `t` belongs to (the same
  // graph, not a copy), for helpers that only receive tensors (layers, optimizers).
  static Graph of(const Tensor& t);
  // A handle on existing graph data (a loaded graph, Session::graph()).
  explicit Graph(std::shared_ptr<GraphData> data);

  // A value fed at run time. Every dim must be known (>= 0) in this slice.
  Tensor placeholder(DType dtype, IntList shape, const std::string& name = "placeholder",
                     std::source_location loc = std::source_location::current());
  // A concrete tensor held by the graph (not copied: later in-place writes to
  // `value` show in runs).
  Tensor constant(const Tensor& value, const std::string& name = "const",
                  std::source_location loc = std::source_location::current());
  // A value that lives in each Session, starts as a copy of `initial_value`
  // once initialized (global_variables_initializer) and persists across runs.
  Tensor variable(const Tensor& initial_value, const std::string& name = "variable", bool trainable = true,
                  std::source_location loc = std::source_location::current());
  // A variable whose value is drawn from `init` (graph::init::xavier_uniform(...),
  // initializers.h) each time an initializer runs, instead of a fixed tensor.
  Tensor variable(const Initializer& init, const std::string& name = "variable", bool trainable = true,
                  std::source_location loc = std::source_location::current());

  // No value: running it initializes every variable created before this call.
  Tensor global_variables_initializer(std::source_location loc = std::source_location::current());

  // The variables made so far (trainable ones only if asked).
  std::vector<Tensor> variables(bool trainable_only = false) const;

  // The graph-level seed (TensorFlow's tf.set_random_seed): from then on every
  // Session of this graph draws the same values. Each variable initializer and
  // each random op node (dropout, rand, ...) draws from a generator of its own,
  // seeded from `seed` and the node's id, and starts afresh in each Session;
  // within one Session repeated runs go on drawing new values. Without a seed
  // they draw from the global generator (manual_seed), so each Session and
  // each run gets new values. May be called before or after building; it
  // applies to the draws that follow (a Session keeps the generators it has
  // already seeded). See docs/graph.md, "Seeds".
  void seed(uint64_t seed);
  std::optional<uint64_t> seed() const;

  // Prefixes names of nodes made while the scope lives with "name/".
  class NameScope {
   public:
    NameScope(Graph& g, const std::string& name);
    ~NameScope();
    NameScope(const NameScope&) = delete;
    NameScope& operator=(const NameScope&) = delete;

   private:
    Graph& g_;
  };
  NameScope name_scope(const std::string& name) { return NameScope(*this, name); }

  // TensorFlow's control_dependencies: every node made while the scope lives
  // (ops, constants, assigns, groups, gradient nodes) gets the nodes of `deps`
  // as control inputs, so running it first runs them. `deps` may be values or
  // no-value nodes (group, assign, initializer) of this graph; nested scopes
  // accumulate. Reading a variable makes no node: inside the scope use an op
  // on it (`v.clone()` is TensorFlow's identity) to see the updated value.
  class ControlDependencies {
   public:
    ControlDependencies(Graph& g, const std::vector<Tensor>& deps);
    ~ControlDependencies();
    ControlDependencies(const ControlDependencies&) = delete;
    ControlDependencies& operator=(const ControlDependencies&) = delete;

   private:
    Graph& g_;
  };
  ControlDependencies control_dependencies(const std::vector<Tensor>& deps) {
    return ControlDependencies(*this, deps);
  }

  int num_nodes() const { return static_cast<int>(data_->nodes.size()); }
  const Node& node(int i) const { return data_->nodes.at(static_cast<std::size_t>(i)); }
  // The node that makes symbolic tensor `t` (which must belong to this graph).
  const Node& node_of(const Tensor& t) const;
  const std::shared_ptr<GraphData>& data() const { return data_; }

  // One line per node ("name = op(inputs) {attrs} : dtype[shape]  @ file:line")
  // and a Graphviz rendering (print.h).
  std::string to_text() const;
  std::string to_dot() const;
  // The value of the node called `name` ("dense/kernel"); "name:k" is output
  // k of a node with several outputs. For loaded graphs, where the code that
  // made the tensors is gone (lookup.cpp).
  Tensor tensor(const std::string& name) const;
  // Places the node that makes `t` on `device` ("opencl:0", "rank:1/cpu";
  // "" removes its placement), whatever scope it was made in. Returns t.
  // See DeviceScope.
  Tensor set_device(const Tensor& t, const std::string& device);
  // The placement of the node that makes `t` ("" when it has none).
  std::string device_of(const Tensor& t) const;
  // Renames the node that makes `t` (an op node is named after its op:
  // "add_3"), so a saved graph's users can find it: g.set_name(y, "y_pred").
  // The name is taken as given (scopes are not prefixed) and must be unused.
  // Returns t.
  Tensor set_name(const Tensor& t, const std::string& name);

 private:
  std::shared_ptr<GraphData> data_;
};

// TensorFlow's tf.device: every node made in `g` while the scope lives
// (ops, placeholders, variables, constants, assigns, gradient nodes made
// elsewhere take their forward node's device) is placed on `device`:
// "opencl:0", "cpu", or "rank:1/cpu" for a device of another MPI process
// (placement.h). Scopes nest; an inner one without "rank:" keeps the outer
// rank, and "" clears the placement. A graph with no placement runs exactly as
// before; a placed one is partitioned by the Session (docs/graph.md, "Placement").
class DeviceScope {
 public:
  DeviceScope(Graph& g, const std::string& device);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  std::shared_ptr<GraphData> g_;
};

// variable = value; returns the new value. The update happens in the Session
// running it, in place.
Tensor assign(const Tensor& variable, const Tensor& value, std::source_location loc = std::source_location::current());
Tensor assign_add(const Tensor& variable, const Tensor& value,
                  std::source_location loc = std::source_location::current());
Tensor assign_sub(const Tensor& variable, const Tensor& value,
                  std::source_location loc = std::source_location::current());
// No value: running it runs all of `inputs` (values or other no-value nodes).
Tensor group(std::initializer_list<Tensor> inputs, std::source_location loc = std::source_location::current());
Tensor group(const std::vector<Tensor>& inputs, std::source_location loc = std::source_location::current());

namespace detail {
// Adds a node to `g` (naming it uniquely from `base`) and returns its outputs
// as symbolic tensors (one no-value tensor for a node without outputs).
TensorList add_node(const std::shared_ptr<GraphData>& g, Node node, const std::string& base);
// The symbolic tensor for output r of a node of `g` (r must name a value).
Tensor value_tensor(const std::shared_ptr<GraphData>& g, ValueRef r);
// Output r of a node of `g`, as a symbolic tensor (a no-value tensor for a
// node without outputs).
Tensor output_tensor(const std::shared_ptr<GraphData>& g, ValueRef r);
// The location ops applied to symbolic tensors record (null outside a LocationScope).
const std::source_location* current_location();
}  // namespace detail

}  // namespace nabla::graph

// The parts of a static graph: nodes and the values that flow between them.
// A Graph owns a GraphData; every symbolic Tensor built from it carries a
// Value (in TensorImpl::symbolic) that names its node and output and keeps
// the GraphData alive, so a graph outlives the Graph object that built it.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <source_location>
#include <string>
#include <vector>

#include "nabla/core/tensor.h"
#include "nabla/ops/op.h"

namespace nabla::graph {

enum class NodeKind : uint8_t {
  Op,           // an op from the table, run eagerly by the Session
  Placeholder,  // a value fed at run time
  Constant,     // a concrete tensor held by the graph
  Variable,     // a value that lives in the Session and persists across runs
  Initializer,  // no value: sets every variable created before it to its initial value
  Assign,       // inputs {value}: variable `target` = value; yields the new value
  AssignAdd,    // variable `target` += value
  AssignSub,    // variable `target` -= value
  Group,        // no value: runs its inputs
};

// One output of one node.
struct ValueRef {
  int node = -1;
  int output = 0;
};

// A source line kept as text. Nodes loaded from a saved graph (serialize.h)
// carry their line this way: a std::source_location cannot be made from a
// file name and a number.
struct StoredLocation {
  std::string file;
  uint32_t line = 0;
};

struct Node {
  NodeKind kind = NodeKind::Op;
  const OpDef* op = nullptr;  // kind == Op
  Attrs attrs;
  std::vector<ValueRef> inputs;
  std::vector<int> control_inputs;  // nodes that must run before this one (no data flows)
  OutputMetas metas;  // empty for the no-value kinds (Initializer, Group)
  std::string name;   // unique in the graph
  std::source_location loc;
  bool loc_known = true;       // false for op nodes made outside a LocationScope
  std::optional<StoredLocation> stored_loc;  // loaded nodes: used instead of `loc`
  Tensor value;                // Constant: the tensor; Variable: its initial value
  bool trainable = true;       // Variable
  int target = -1;             // Assign*: the variable's node
  std::vector<int> variables;  // Initializer: the variables it initializes
};

struct GraphData {
  std::vector<Node> nodes;
  std::vector<std::string> scopes;      // active name scopes, outermost first
  std::vector<std::string> used_names;  // kept sorted for lookup
};

// What TensorImpl::symbolic holds for a graph value.
class Value : public RefCounted {
 public:
  Value(std::shared_ptr<GraphData> g, ValueRef r, bool has_value) : graph(std::move(g)), ref(r), has_value(has_value) {}
  std::shared_ptr<GraphData> graph;
  ValueRef ref;
  bool has_value;  // false for Initializer and Group nodes
};

// The Value of a symbolic tensor (nullptr for a concrete or undefined one).
Value* value_of(const Tensor& t);

// "name (created at file:line)" for error messages.
std::string describe(const Node& n);

}  // namespace nabla::graph

// The parts of a static graph: nodes and the values that flow between them.
// A Graph owns a GraphData; every symbolic Tensor built from it carries a
// Value (in TensorImpl::symbolic) that names its node and output and keeps
// the GraphData alive, so a graph outlives the Graph object that built it.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <source_location>
#include <string>
#include <vector>

#include "nabla/core/tensor.h"
#include "nabla/core/trace_context.h"
#include "nabla/graph/initializers.h"
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
  // Control flow (control_flow.h): nodes that run subgraphs (Node::subgraphs).
  Cond,         // inputs {pred, captures...}: runs subgraphs[0] if pred else subgraphs[1]
  While,        // inputs {loop vars..., captures...}: subgraphs {cond, body}
  WhileGrad,    // the gradient of a While: subgraphs {cond, body, body's gradient}
  // compile() only (cannot be saved): calls Node::effect on its input values,
  // which changes the bound variables `mutates` in place (an optimizer step).
  Effect,
  // gradients() in a graph with unknown dims (specialize.h): inputs
  // {ys..., xs..., grad_ys...}, one output per x; expanded into the gradient
  // rules' nodes once the fed shapes are known.
  Gradients,
};

// Kinds that change variables: passes keep the order of reads around them.
inline bool changes_state(NodeKind k) {
  return k == NodeKind::Assign || k == NodeKind::AssignAdd || k == NodeKind::AssignSub ||
         k == NodeKind::Initializer || k == NodeKind::Effect;
}

// One output of one node.
struct ValueRef {
  int node = -1;
  int output = 0;
  friend bool operator==(const ValueRef&, const ValueRef&) = default;
};

struct FusedChain;  // passes/fuse_elementwise.h
struct GraphData;

// A body of a control-flow node (a cond branch, a loop's condition or body):
// a graph of its own whose Placeholder nodes `params` are bound, when it
// runs, to the owner node's inputs (params[k] <-> inputs[k]; -1: input k is
// not used by this body), and whose `results` are what it returns. Plain
// data: the functions that built it ran once, at build time.
struct Subgraph {
  std::shared_ptr<GraphData> graph;
  std::vector<int> params;
  std::vector<ValueRef> results;
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
  // Where the node runs (graph::DeviceScope, Graph::set_device; placement.h):
  // "opencl:0", "cpu", "rank:1/cpu". Empty: the Session's device, as before
  // placement existed. Nodes inside cond/while bodies run where their owner does.
  std::string device;
  Tensor value;                // Constant: the tensor; Variable: its initial value (unless `init`)
  std::optional<Initializer> init;  // Variable: drawn afresh at each initialization (then `value` is undefined)
  bool trainable = true;       // Variable
  // Variable made by compile() for a tensor it closes over (a parameter):
  // `value` is that tensor itself, which the Session reads and updates in
  // place; it is always initialized and never copied.
  bool bound = false;
  std::function<void(const std::vector<Tensor>&)> effect;  // Effect
  ::nabla::detail::EffectReplay effect_replay;             // Effect: how a CUDA graph replays it (trace_context.h)
  std::vector<int> mutates;    // Effect: the bound variables it may change
  int target = -1;             // Assign*: the variable's node
  std::vector<int> variables;  // Initializer: the variables it initializes
  // Only in a Session's execution plan: an Op node that runs a whole chain of
  // elementwise ops in one loop (op is then fused_elementwise_op()).
  std::shared_ptr<const FusedChain> fused;
  std::vector<Subgraph> subgraphs;  // Cond, While, WhileGrad (see NodeKind)
  // Gradients: the first num_ys inputs are the ys, the next metas.size() the
  // xs; input num_ys + xs + k is the gradient given for y grad_ys_of[k].
  int num_ys = 0;
  std::vector<int> grad_ys_of;
};

struct GraphData {
  std::vector<Node> nodes;
  std::vector<std::string> scopes;      // active name scopes, outermost first
  std::vector<std::string> used_names;  // kept sorted for lookup
  // Active control_dependencies scopes, outermost first: every node made while
  // they live gets all of these node ids as control inputs.
  std::vector<std::vector<int>> control_scopes;
  // Active DeviceScopes, outermost first, each already merged with the one
  // outside it ("rank:1/cpu" then "opencl:0" gives "rank:1/opencl:0").
  std::vector<std::string> device_scopes;

  // Control flow (control_flow.h). A subgraph (a cond branch, a loop body)
  // knows the graph it is nested in and says what it is for error messages.
  std::weak_ptr<GraphData> parent;
  std::string region;
  // While a subgraph is built: the parent's values it captured, each bound to
  // placeholder capture_params[i] of this graph.
  std::vector<ValueRef> captures;
  std::vector<int> capture_params;
  // Root graph only: the subgraphs being built, innermost last; ops on
  // symbolic tensors add their nodes to the innermost one.
  std::vector<std::shared_ptr<GraphData>> open_subgraphs;
  // Root graph only: a placeholder has an unknown dim (-1), so the graph is a
  // recipe the Session specializes to the fed shapes (specialize.h).
  bool unknown_dims = false;
  // Root graph only: the graph-level seed (Graph::seed, TensorFlow's
  // tf.set_random_seed). With it each Session draws every variable
  // initializer and random op from a generator of its own, seeded from this
  // seed and the node's id; without it they draw from the global generator.
  std::optional<uint64_t> seed;
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

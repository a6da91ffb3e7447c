// OptGraph: the graph a pass rewrites. It is a copy of some source graph's
// nodes (the user's GraphData is never touched) plus, for every value of the
// source, the value of `graph` that computes the same thing, so that any
// source value can still be fetched after passes merged, folded, simplified
// or fused nodes. Passes rewrite by forwarding a value to an equivalent one
// (forward + apply_forwards) and by editing nodes in place; compact() then
// drops the nodes nothing needs and renumbers. Node order stays a
// topological order and keeps the source's relative order, which is the run
// order (assigns and reads of a variable keep their order).
#pragma once
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "nabla/graph/node.h"

namespace nabla::graph {

struct OptGraph {
  GraphData graph;
  // Per node of `graph`: the node of the *user's* graph it stands for (-1 for
  // a node a pass made). Variables live in the Session under these ids.
  std::vector<int> origin;
  // Per source node, per output (one entry for a no-value node): its value in
  // `graph`; node -1 once nothing computes it any more.
  std::vector<std::vector<ValueRef>> source_values;
  // Constants whose data a pass read (constant folding): a later in-place
  // change of one (storage version) makes the result stale.
  std::vector<std::pair<Tensor, uint32_t>> read_constants;

  // Forwarding table of the current pass: uses of `from` become uses of `to`.
  void forward(ValueRef from, ValueRef to);
  // `r` after forwarding (transitively).
  ValueRef resolve(ValueRef r) const;
  // Rewrites every input and source value through the forwarding table.
  void apply_forwards();

  const Node& node(int id) const { return graph.nodes[static_cast<std::size_t>(id)]; }
  Node& node(int id) { return graph.nodes[static_cast<std::size_t>(id)]; }
  int size() const { return static_cast<int>(graph.nodes.size()); }
  // The forwarding table itself (per node, per output; empty: none). Use
  // forward/resolve/apply_forwards rather than this.
  std::vector<std::vector<ValueRef>> forwards;
};

// A copy of the user's graph `g` to optimize (origins: identity).
OptGraph copy_of_user_graph(const GraphData& g);
// A group may name a node without a value (an initializer, another group) as
// an input (a graph's API and the .nbg format allow it); passes and plans
// index values by output, so in a copy to optimize such inputs become control
// inputs, which mean the same for a group: it runs after them.
void no_value_inputs_as_control(GraphData& g);
// A copy of an optimized graph, whose source values are its nodes.
OptGraph copy_of_optimized(const OptGraph& g);

// Keeps the nodes that `roots` reach through inputs and control inputs (the
// roots included), drops the rest and renumbers; source values whose node is
// dropped become {-1, 0}.
void compact(OptGraph& g, const std::vector<int>& roots);

// An op node named `name` with `outputs` outputs that no pass has fused and
// no control input orders: what the fusion passes may rewrite (each adds
// the dtypes it handles).
bool is_plain_op(const Node& n, std::string_view name, std::size_t outputs = 1);

// How many times each node is read: as an input, as a control input and as a
// fetch. A node read once can be fused into its one reader.
std::vector<int> use_counts(const OptGraph& g, const std::vector<ValueRef>& fetches);

// Rebuilds g's node list in one sweep, for passes that insert nodes: take()
// each old node in order (inputs renumbered), add() new nodes before it as
// needed, keep() it, then finish(). New nodes may read any value already in
// the new list, so the order stays topological.
class NodeListRebuild {
 public:
  explicit NodeListRebuild(OptGraph& g);
  // Old node `id`, moved out, its inputs and control inputs renumbered.
  Node take(int id);
  // Appends `node` as the new place of old node `id`.
  void keep(int id, Node node);
  // Appends a node made by the pass running `op` (found in the op table;
  // `pass` names the pass in the error if it is not), named `name` (made
  // unique with _1, _2, ...), located and placed like `like`, with one output
  // of `sizes` and `dtype`. Returns its value.
  ValueRef add(const char* pass, const Node& like, std::string_view op, const std::string& name,
               std::vector<ValueRef> inputs, Shape sizes, DType dtype, Attrs attrs = {});
  // A value of the old list, in the new one (its node kept already).
  ValueRef renumber(ValueRef old) const;
  // The new list's node for old node `id` (kept already). The reference is
  // good until the next add() or keep().
  const Node& kept(int id) const;
  // The meta of a value of the new list.
  const OutputMeta& meta(ValueRef r) const;
  // Installs the new list; renumbers source values and `fetches`.
  void finish(std::vector<ValueRef>& fetches);

 private:
  OptGraph& g_;
  std::unordered_set<std::string> names_;
  std::vector<Node> nodes_;
  std::vector<int> origin_, new_id_;
};

}  // namespace nabla::graph

// What the rest of graph/ calls into for control flow: the symbolic hook
// (which graph an op's node goes to, captures), the Session (running Cond /
// While nodes) and gradients() (their gradients). Not for users.
#pragma once
#include <memory>
#include <vector>

#include "nabla/graph/node.h"
#include "nabla/graph/session.h"

namespace nabla::graph::detail {

inline bool is_control_flow(NodeKind k) {
  return k == NodeKind::Cond || k == NodeKind::While || k == NodeKind::WhileGrad;
}

// The outermost graph `g` is nested in (g itself for a top-level graph).
std::shared_ptr<GraphData> root_of(const std::shared_ptr<GraphData>& g);
// Where new nodes of the graph `g` belongs to go: the innermost subgraph being
// built, or the root graph when none is.
std::shared_ptr<GraphData> build_target(const std::shared_ptr<GraphData>& g);
// Value `ref` of graph `src` as a value of `target`: itself, or a placeholder
// of `target` capturing it when `src` encloses `target`. A clear error naming
// `api` when `src` is a subgraph `target` is not inside (a value made inside
// a cond branch or loop body, used outside it).
ValueRef import_value(const std::shared_ptr<GraphData>& target, const std::shared_ptr<GraphData>& src, ValueRef ref,
                      const char* api);

// While it lives, `sub` (whose parent is set) is the innermost subgraph
// being built: ops on symbolic tensors add their nodes to it.
class OpenSubgraph {
 public:
  explicit OpenSubgraph(const std::shared_ptr<GraphData>& sub);
  ~OpenSubgraph();
  OpenSubgraph(const OpenSubgraph&) = delete;
  OpenSubgraph& operator=(const OpenSubgraph&) = delete;

 private:
  std::shared_ptr<GraphData> root_;
};

// Runs a Cond, While or WhileGrad node on its input values (control_flow_run.cpp).
// A loop runs its body at most options.max_loop_iterations times.
TensorList run_control_flow(const Node& node, const TensorList& inputs, const SessionOptions& options,
                            Session::Stats& stats);

// Gradients of a Cond or While node's inputs given gradients of its outputs
// (undefined: none); needs[i]: input i wants one (control_flow_grad.cpp).
TensorList control_flow_gradient(const std::shared_ptr<GraphData>& g, int id, const TensorList& out_grads,
                                 const std::vector<char>& needs);

}  // namespace nabla::graph::detail

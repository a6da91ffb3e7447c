// Running control-flow nodes. A subgraph runs as built (no passes: the
// Session's passes treat Cond/While nodes as opaque ops whose inputs are the
// values they capture), pruned to what its results need, in node order.
// Its values live until the subgraph run ends (one branch, one iteration).
//
// WhileGrad re-runs the forward loop to record the loop variables before
// each body run, then runs the body's gradient subgraph over that history
// backwards: the forward While node keeps no hidden state for it, so both
// stay plain data (and a graph that only fetches the loop's result pays
// nothing for its gradient).
#include "nabla/graph/control_flow_detail.h"
#include "nabla/graph/run_op.h"
#include "nabla/ops/ops.h"

namespace nabla::graph::detail {

namespace {

// Nodes of s the results need, through inputs (subgraph nodes have no control inputs).
std::vector<char> needed_nodes(const Subgraph& s) {
  const GraphData& g = *s.graph;
  std::vector<char> need(g.nodes.size(), 0);
  for (const ValueRef& r : s.results) need[static_cast<std::size_t>(r.node)] = 1;
  for (std::size_t i = g.nodes.size(); i-- > 0;) {
    if (!need[i]) continue;
    for (const ValueRef& r : g.nodes[i].inputs) need[static_cast<std::size_t>(r.node)] = 1;
    for (int c : g.nodes[i].control_inputs) need[static_cast<std::size_t>(c)] = 1;
  }
  return need;
}

TensorList run_subgraph(const Subgraph& s, const std::vector<char>& need, const TensorList& args,
                        const SessionOptions& options, Session::Stats& stats) {
  const GraphData& g = *s.graph;
  std::vector<TensorList> values(g.nodes.size());
  for (std::size_t k = 0; k < s.params.size() && k < args.size(); ++k)
    if (s.params[k] >= 0) values[static_cast<std::size_t>(s.params[k])] = {args[k]};
  for (std::size_t id = 0; id < g.nodes.size(); ++id) {
    if (!need[id]) continue;
    const Node& node = g.nodes[id];
    TensorList& out = values[id];
    TensorList ins;
    for (const ValueRef& r : node.inputs)
      ins.push_back(values[static_cast<std::size_t>(r.node)][static_cast<std::size_t>(r.output)]);
    try {
      switch (node.kind) {
        case NodeKind::Placeholder:
          NABLA_CHECK(!out.empty(), "Session::run: internal error: placeholder ", describe(node), " of ", g.region,
                      " is not bound");
          break;
        case NodeKind::Constant:
          out = {node.value};
          break;
        case NodeKind::Op:
          out = run_op_node(node, Inputs(ins.data(), ins.size()));
          ++stats.ops_executed;
          break;
        case NodeKind::Cond:
        case NodeKind::While:
        case NodeKind::WhileGrad:
          out = run_control_flow(node, ins, options, stats);
          break;
        default:
          NABLA_CHECK(false, "Session::run: internal error: node ", describe(node), " cannot run inside ", g.region);
      }
    } catch (const Error& e) {
      if (node.kind != NodeKind::Op) throw;
      throw Error(::nabla::detail::concat(e.what(), "\n  while running node ", describe(node), " in ", g.region));
    }
    ++stats.nodes_executed;
  }
  TensorList results;
  for (const ValueRef& r : s.results)
    results.push_back(values[static_cast<std::size_t>(r.node)][static_cast<std::size_t>(r.output)]);
  return results;
}

bool truth(const Tensor& t) { return t.item<bool>(); }

// Runs a loop: calls `before_body(vars)` before each body run; returns the final vars.
template <class F>
TensorList run_loop(const Node& node, const TensorList& inputs, std::size_t n_vars, const SessionOptions& options,
                    Session::Stats& stats, F&& before_body) {
  const Subgraph& c = node.subgraphs[0];
  const Subgraph& b = node.subgraphs[1];
  const std::vector<char> need_c = needed_nodes(c), need_b = needed_nodes(b);
  const int64_t max_iterations = node.attrs.i(0);
  TensorList args = inputs;  // {vars..., captures...}
  const int64_t limit = options.max_loop_iterations;
  for (int64_t it = 0; max_iterations < 0 || it < max_iterations; ++it) {
    if (!truth(run_subgraph(c, need_c, args, options, stats)[0])) break;
    // A loop bound from a file (or a condition that never turns false) must
    // not run for ever, nor grow WhileGrad's history until memory runs out.
    NABLA_CHECK(limit < 0 || it < limit, "Session::run: while_loop node ", describe(node),
                " still wants to run its body after ", it, " iterations, the limit of "
                "SessionOptions::max_loop_iterations; pass a larger limit (or -1 for none) if the loop is meant to "
                "run that long, or check its condition");
    TensorList vars(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(n_vars));
    before_body(vars);
    TensorList next = run_subgraph(b, need_b, args, options, stats);
    for (std::size_t k = 0; k < n_vars; ++k) args[k] = next[k];
  }
  return TensorList(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(n_vars));
}

// WhileGrad. Inputs: {vars (n), captures (m), seeds (one per floating var)};
// attrs {maximum_iterations, n, floating vars, captures wanted}; outputs:
// gradients of the floating vars' initial values, then of the wanted captures.
TensorList run_while_grad(const Node& node, const TensorList& inputs, const SessionOptions& options,
                          Session::Stats& stats) {
  const std::size_t n = static_cast<std::size_t>(node.attrs.i(1));
  const Shape& float_vars = node.attrs.ints(2);
  const Shape& wanted_caps = node.attrs.ints(3);
  const std::size_t m = inputs.size() - n - float_vars.size();
  TensorList forward(inputs.begin(), inputs.begin() + static_cast<std::ptrdiff_t>(n + m));
  std::vector<TensorList> history;  // vars before each body run
  run_loop(node, forward, n, options, stats, [&](const TensorList& vars) { history.push_back(vars); });

  const Subgraph& bg = node.subgraphs[2];
  const std::vector<char> need = needed_nodes(bg);
  TensorList seeds(inputs.begin() + static_cast<std::ptrdiff_t>(n + m), inputs.end());
  TensorList cap_grads;
  for (std::size_t k = 0; k < wanted_caps.size(); ++k) {
    const OutputMeta& meta = node.metas[float_vars.size() + k];
    cap_grads.push_back(zeros(meta.sizes, TensorOptions().dtype(meta.dtype)));
  }
  for (std::size_t i = history.size(); i-- > 0;) {
    TensorList args = history[i];
    args.append(forward.begin() + static_cast<std::ptrdiff_t>(n), forward.end());
    args.append(seeds.begin(), seeds.end());
    TensorList r = run_subgraph(bg, need, args, options, stats);
    for (std::size_t k = 0; k < seeds.size(); ++k) seeds[k] = r[k];
    for (std::size_t k = 0; k < cap_grads.size(); ++k) cap_grads[k] = cap_grads[k] + r[seeds.size() + k];
  }
  TensorList out = seeds;
  out.append(cap_grads.begin(), cap_grads.end());
  return out;
}

}  // namespace

TensorList run_control_flow(const Node& node, const TensorList& inputs, const SessionOptions& options,
                            Session::Stats& stats) {
  switch (node.kind) {
    case NodeKind::Cond: {
      const Subgraph& branch = node.subgraphs[truth(inputs[0]) ? 0 : 1];
      return run_subgraph(branch, needed_nodes(branch), inputs, options, stats);
    }
    case NodeKind::While:
      return run_loop(node, inputs, node.metas.size(), options, stats, [](const TensorList&) {});
    case NodeKind::WhileGrad:
      return run_while_grad(node, inputs, options, stats);
    default:
      NABLA_CHECK(false, "Session::run: internal error: node ", describe(node), " is not a control-flow node");
  }
  return {};
}

}  // namespace nabla::graph::detail

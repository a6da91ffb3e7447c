// Session placement: where each node of a plan runs, and the values that
// cross from one placement to another (TensorFlow's partitioning with
// send/recv pairs). Within a process a crossing value is copied to the
// reader's device; between processes the writer sends it over the
// SessionOptions::transport and the reader receives it. Every process builds
// the same plan, so a transfer's index is its message tag, and all of them
// make the transfers in the plan's one order: sends never block, so no
// process waits on one that is itself waiting.
#include <map>
#include <tuple>

#include "nabla/core/backend.h"
#include "nabla/graph/session_plan.h"

namespace nabla::graph {

namespace {

int64_t nbytes_of(const Tensor& t) { return t.numel() * static_cast<int64_t>(itemsize(t.dtype())); }

// Group and Initializer nodes run in every process (a group only orders; an
// initializer sets each process's own variables).
bool runs_everywhere(NodeKind k) { return k == NodeKind::Group || k == NodeKind::Initializer; }

}  // namespace

Placement Session::placement_of_user_node(int id) const {
  const Node& n = graph_->nodes[static_cast<std::size_t>(id)];
  if (n.kind == NodeKind::Assign || n.kind == NodeKind::AssignAdd || n.kind == NodeKind::AssignSub)
    return placement_of_user_node(n.target);  // an assign runs where its variable lives
  if (n.device.empty()) return Placement{0, device_};
  return parse_placement(n.device, ::nabla::detail::concat("Session: node ", describe(n)));
}

void Session::check_placements() const {
  const int world = options_.transport ? options_.transport->world_size() : 1;
  for (const Node& n : graph_->nodes) {
    if (n.device.empty()) continue;
    const Placement p = parse_placement(n.device, ::nabla::detail::concat("Session: node ", describe(n)));
    NABLA_CHECK(p.rank < world, "Session: node ", describe(n), " is placed on '", n.device, "', but the job has ",
                world, world == 1 ? std::string(" process (rank 0)") : " processes (ranks 0 to " + std::to_string(world - 1) + ")",
                options_.transport ? "" : "; a Session without SessionOptions::transport is one process");
    if (p.rank != my_rank()) continue;  // that process checks its own devices
    try {
      backend_for(p.device, "graph::Session");
    } catch (const Error& e) {
      fail("Session: node ", describe(n), " is placed on '", n.device, "', which this process cannot run: ", e.what());
    }
  }
}

void Session::place_plan(Plan& plan) const {
  const GraphData& pg = plan.graph.graph;
  const std::size_t n = pg.nodes.size();
  plan.placed = true;
  plan.where.resize(n);
  for (std::size_t id = 0; id < n; ++id) {
    const Node& node = pg.nodes[id];
    const int origin = plan.graph.origin[id];
    if (runs_everywhere(node.kind)) {
      plan.where[id] = Placement{my_rank(), device_};
    } else if (node.target >= 0) {
      plan.where[id] = placement_of_user_node(node.target);
    } else if (!node.device.empty()) {
      plan.where[id] = parse_placement(node.device, ::nabla::detail::concat("Session: node ", describe(node)));
    } else {  // a node a pass made: where the user's node it stands for runs
      plan.where[id] = origin >= 0 ? placement_of_user_node(origin) : Placement{0, device_};
    }
  }
  plan.transfers_at.assign(n, {});
  plan.input_transfer.assign(n, {});
  // One transfer per (value, destination); a variable's value once per reader.
  std::map<std::tuple<int, int, int, int, int, int>, int> made;
  for (std::size_t id = 0; id < n; ++id) {
    const Node& node = pg.nodes[id];
    plan.input_transfer[id].assign(node.inputs.size(), -1);
    if (node.kind == NodeKind::Group) continue;  // reads nothing
    const Placement& to = plan.where[id];
    for (std::size_t k = 0; k < node.inputs.size(); ++k) {
      const ValueRef& r = node.inputs[k];
      const Placement& from = plan.where[static_cast<std::size_t>(r.node)];
      if (from == to) continue;
      const bool variable = pg.nodes[static_cast<std::size_t>(r.node)].kind == NodeKind::Variable;
      auto key = std::make_tuple(r.node, r.output, to.rank, static_cast<int>(to.device.type), int(to.device.index),
                                 variable ? static_cast<int>(id) : -1);
      auto [it, fresh] = made.try_emplace(key, static_cast<int>(plan.transfers.size()));
      if (fresh) {
        plan.transfers.push_back({r, from, to, static_cast<int>(id)});
        plan.transfers_at[id].push_back(it->second);
      }
      plan.input_transfer[id][k] = it->second;
    }
  }
}

void Session::run_transfers(Plan& plan, std::size_t id, const std::vector<TensorList>& values,
                            std::vector<Tensor>& moved) {
  const int me = my_rank();
  for (int t : plan.transfers_at[id]) {
    const Plan::Transfer& tr = plan.transfers[static_cast<std::size_t>(t)];
    if (tr.from.rank == me) {
      const Tensor& v = values[static_cast<std::size_t>(tr.src.node)][static_cast<std::size_t>(tr.src.output)];
      if (tr.to.rank == me) {
        moved[static_cast<std::size_t>(t)] = v.to(tr.to.device);
      } else {
        // The transport keeps the buffer until the send completes: never a
        // variable's own (a later assign of this run would change it).
        Tensor buffer = v.detach().cpu().contiguous();
        if (buffer.impl()->storage.get() == v.impl()->storage.get()) buffer = buffer.clone();
        options_.transport->send(buffer, tr.to.rank, t);
      }
      ++stats_.sent_tensors;
      stats_.sent_bytes += nbytes_of(v);
    } else if (tr.to.rank == me) {
      const OutputMeta& m =
          plan.graph.graph.nodes[static_cast<std::size_t>(tr.src.node)].metas[static_cast<std::size_t>(tr.src.output)];
      Tensor buffer = make_empty(m.sizes, m.dtype, kCPU, "Session::run");
      options_.transport->recv(buffer, tr.from.rank, t);
      moved[static_cast<std::size_t>(t)] = buffer.to(tr.to.device);
      ++stats_.received_tensors;
      stats_.received_bytes += nbytes_of(buffer);
    }
  }
}

}  // namespace nabla::graph

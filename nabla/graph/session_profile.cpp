// Session profiling (SessionOptions::profile): the per-node times that
// Session::run adds up in each plan, reported as a Profile or a table.
#include <algorithm>
#include <cstdio>

#include "nabla/graph/print.h"
#include "nabla/graph/session.h"
#include "nabla/graph/session_plan.h"

namespace nabla::graph {

void Session::reset_profile() {
  for (auto& [key, spec] : specializations_)
    for (auto& [fetch_key, plan] : spec.plans) {
      std::fill(plan->node_ns.begin(), plan->node_ns.end(), 0);
      plan->run_ns = 0;
      plan->profiled_runs = 0;
    }
}

Session::Profile Session::profile(const std::vector<Tensor>& fetches, const Feeds& feeds) {
  const Plan& plan = plan_for(fetches, feeds);
  Profile p;
  p.runs = plan.profiled_runs;
  p.ms = static_cast<double>(plan.run_ns) * 1e-6;
  const GraphData& g = plan.graph.graph;
  for (std::size_t id = 0; id < g.nodes.size(); ++id) {
    const int64_t ns = id < plan.node_ns.size() ? plan.node_ns[id] : 0;
    p.nodes.push_back({node_text(g, static_cast<int>(id), graph_.get()), static_cast<double>(ns) * 1e-6});
  }
  return p;
}

std::string Session::profile_text(const std::vector<Tensor>& fetches, const Feeds& feeds) {
  Profile p = profile(fetches, feeds);
  if (p.runs == 0)
    return "profile: no profiled runs of this plan (turn profiling on with SessionOptions::profile or "
           "Session::set_profiling(true), then run it)\n";
  const double runs = static_cast<double>(p.runs);
  double nodes_ms = 0;
  for (const NodeTime& t : p.nodes) nodes_ms += t.ms;
  std::vector<const NodeTime*> order;
  for (const NodeTime& t : p.nodes) order.push_back(&t);
  std::stable_sort(order.begin(), order.end(), [](const NodeTime* a, const NodeTime* b) { return a->ms > b->ms; });
  char line[160];
  std::snprintf(line, sizeof line, "profile of %lld run%s: %.3f ms per run (nodes %.3f, session %.3f)\n",
                static_cast<long long>(p.runs), p.runs == 1 ? "" : "s", p.ms / runs, nodes_ms / runs,
                (p.ms - nodes_ms) / runs);
  std::string out = line;
  out += "     us/run      %  node\n";
  for (const NodeTime* t : order) {
    std::snprintf(line, sizeof line, "%11.1f %6.1f  ", t->ms / runs * 1e3, p.ms > 0 ? 100.0 * t->ms / p.ms : 0.0);
    out += line + t->node + "\n";
  }
  return out;
}

}  // namespace nabla::graph

// CUDA graphs for a Session's plans (SessionOptions::cuda_graphs), as
// PyTorch's torch.cuda.CUDAGraph and make_graphed_callables:
// - warm-up: a plan runs cuda_graph_warmup times normally (kernels compiled,
//   cuBLAS handle and workspace made, the caching allocator holding blocks
//   of every size the run asks for, optimizer state made);
// - capture: the next run copies its feeds into input buffers of the graph's
//   own, then runs the plan with the device's compute stream captured
//   (core/cuda_library.h, Runtime::begin_capture): its kernels, fills, copies
//   and GEMMs are recorded, not run, and what it allocates comes from a
//   private pool that stays the graph's; then the graph is instantiated and
//   launched once, which makes this run's step;
// - replay: later runs copy their feeds into the input buffers, do the host
//   bookkeeping of the plan's effects (an optimizer's step counts), launch
//   the graph, and return copies of the captured outputs.
// Variables are updated in place by every run (assigns copy into them, an
// optimizer updates its parameters in place), so the graph's addresses stay
// theirs. Each replay checks that they are: a variable re-initialized, an
// effect whose host values changed (EffectReplay::key: a new learning rate)
// drops the graph and captures it again after a warm-up run; past
// kMaxCaptures the plan gives up. A plan that cannot be captured (see
// cuda_graph_obstacle, or a capture the driver refuses) runs normally from
// then on; cuda_graph_status says why.
#include <algorithm>
#include <cstdio>

#include "nabla/core/cuda_library.h"
#include "nabla/core/grad_mode.h"
#include "nabla/graph/print.h"
#include "nabla/graph/session_plan.h"

namespace nabla::graph {

namespace {

// Captures of one plan before it gives up (its effects' host values or its
// variables' memory keep changing: a learning rate changed at every step).
constexpr int kMaxCaptures = 4;

int64_t nbytes_of(const Tensor& t) { return t.numel() * static_cast<int64_t>(itemsize(t.dtype())); }

// Where a tensor's data lives, to tell whether a variable is still the one
// captured.
std::pair<const void*, int64_t> place_of(const Tensor& t) {
  return {t.impl()->storage ? t.impl()->storage->handle() : nullptr, t.impl()->offset};
}

}  // namespace

struct CudaGraphState {
  enum class Phase { Warming, Captured, GaveUp };
  Phase phase = Phase::Warming;
  int warm_runs = 0;  // normal runs made since the plan was made or its graph dropped
  int captures = 0;
  int64_t replays = 0;
  std::string reason;  // GaveUp: why
  cuda::detail::CapturedGraph* graph = nullptr;
  std::unordered_map<int, Tensor> inputs;  // user placeholder id -> the graph's input buffer
  std::vector<Tensor> outputs;             // per fetch: its captured value (undefined: no value)
  std::vector<std::pair<const Node*, std::string>> effect_keys;              // at capture
  std::vector<std::pair<int, std::pair<const void*, int64_t>>> variables;  // user variable id -> place at capture

  void drop() {
    if (graph) cuda::detail::runtime().destroy(graph);
    graph = nullptr;
    inputs.clear();
    outputs.clear();
    effect_keys.clear();
    variables.clear();
  }
  ~CudaGraphState() { drop(); }
};

std::string Session::cuda_graph_obstacle(const Plan& plan) const {
  if (!cuda::detail::load_library() || !cuda::detail::runtime().begin_capture)
    return "the CUDA backend has no graph support loaded (" + cuda::detail::load_error() + ")";
  if (plan.placed) return "the graph is placed over several devices or processes (graph::DeviceScope)";
  for (const Node& node : plan.graph.graph.nodes) {
    switch (node.kind) {
      case NodeKind::Initializer:
        return "node " + describe(node) + " initializes variables (new buffers at each run)";
      case NodeKind::Cond:
      case NodeKind::While:
      case NodeKind::WhileGrad:
        return "node " + describe(node) + " is control flow, decided on the host at each run";
      case NodeKind::Effect:
        if (!node.effect_replay.key)
          return "node " + describe(node) +
                 " runs host code whose device work depends on host state that changes from run to run (an "
                 "optimizer whose update reads its step count, such as Adam's bias correction)";
        break;
      case NodeKind::Op:
        if (node.op && node.op->has(kRandom))
          return "node " + describe(node) +
                 " draws random numbers: the generator's state is on the host, so a replay would repeat the draws";
        if (node.inputs.empty())
          return "node " + describe(node) + " makes its value on the host at each run (an op without inputs)";
        break;
      default:
        break;
    }
  }
  return "";
}

std::optional<std::vector<Tensor>> Session::run_cuda_graph(Plan& plan, const std::unordered_map<int, Tensor>& fed) {
  if (!plan.cuda_graph) plan.cuda_graph = std::make_shared<CudaGraphState>();
  CudaGraphState& g = *plan.cuda_graph;
  auto give_up = [&](std::string reason) -> std::optional<std::vector<Tensor>> {
    g.drop();
    g.phase = CudaGraphState::Phase::GaveUp;
    g.reason = std::move(reason);
    ++stats_.cuda_graph_fallbacks;
    NABLA_CHECK(options_.cuda_graphs != CudaGraphs::On, "Session::run: SessionOptions::cuda_graphs is On, but this "
                "plan cannot be captured into a CUDA graph: ", g.reason,
                " (use CudaGraphs::Auto to run such plans normally)");
    return std::nullopt;
  };
  switch (g.phase) {
    case CudaGraphState::Phase::GaveUp:
      return std::nullopt;
    case CudaGraphState::Phase::Warming:
      if (g.captures == 0 && g.warm_runs == 0)
        if (std::string why = cuda_graph_obstacle(plan); !why.empty()) return give_up(std::move(why));
      if (g.warm_runs < std::max(1, options_.cuda_graph_warmup)) {
        ++g.warm_runs;
        return std::nullopt;  // a normal run
      }
      return capture_cuda_graph(plan, fed);
    case CudaGraphState::Phase::Captured:
      break;
  }
  // The graph writes the memory it was captured with, with the host values
  // its effects had then: still the right step?
  std::string stale;
  for (const auto& [id, place] : g.variables) {
    auto it = variables_.find(id);
    if (it == variables_.end() || place_of(it->second) != place)
      stale = "variable " + describe(graph_->nodes[static_cast<std::size_t>(id)]) + " has new memory";
  }
  for (const auto& [node, key] : g.effect_keys)
    if (stale.empty() && node->effect_replay.key() != key)
      stale = "the host values of " + describe(*node) + " changed (a hyper-parameter or its state)";
  if (!stale.empty()) {
    g.drop();
    if (g.captures >= kMaxCaptures)
      return give_up("captured " + std::to_string(g.captures) + " times, and again " + stale);
    // This run is a normal one (it warms); the next captures again.
    g.phase = CudaGraphState::Phase::Warming;
    g.warm_runs = std::max(1, options_.cuda_graph_warmup);
    return std::nullopt;
  }
  NoGradGuard no_grad;
  for (auto& [id, buffer] : g.inputs) {
    auto it = fed.find(id);
    NABLA_CHECK(it != fed.end(), "Session::run: internal error: a CUDA graph's input ",
                describe(graph_->nodes[static_cast<std::size_t>(id)]), " was not fed");
    if (it->second.device() != device_) stats_.host_to_device_bytes += nbytes_of(it->second);
    buffer.copy_(it->second);  // on the compute stream, before the replay
  }
  cuda::detail::runtime().launch(g.graph);
  for (const auto& [node, key] : g.effect_keys)
    if (node->effect_replay.replayed) node->effect_replay.replayed();
  ++g.replays;
  ++stats_.cuda_graph_replays;
  // Copies: the next replay overwrites the captured outputs.
  std::vector<Tensor> results;
  for (const Tensor& t : g.outputs) {
    if (!t.defined()) {
      results.emplace_back();
    } else if (options_.fetches_to_host) {
      results.push_back(t.cpu());
      stats_.device_to_host_bytes += nbytes_of(t);
    } else {
      results.push_back(t.clone());
    }
  }
  return results;
}

std::optional<std::vector<Tensor>> Session::capture_cuda_graph(Plan& plan,
                                                               const std::unordered_map<int, Tensor>& fed) {
  CudaGraphState& g = *plan.cuda_graph;
  const cuda::detail::Runtime& rt = cuda::detail::runtime();
  NoGradGuard no_grad;
  // The input buffers: the graph's own (outside its pool), fed before capture.
  std::unordered_map<int, Tensor> inputs;
  for (const Node& node : plan.graph.graph.nodes) {
    if (node.kind != NodeKind::Placeholder) continue;
    const int id = plan.graph.origin[static_cast<std::size_t>(&node - plan.graph.graph.nodes.data())];
    auto it = fed.find(id);
    if (it == fed.end()) continue;  // run_nodes says it was not fed
    Tensor buffer = make_empty(it->second.sizes(), it->second.dtype(), device_, "Session::run");
    if (it->second.device() != device_) stats_.host_to_device_bytes += nbytes_of(it->second);
    buffer.copy_(it->second);
    inputs.emplace(id, std::move(buffer));
  }
  // The effects' host values before the capture: a capture whose effects
  // change them (made their state now) would replay that change each time.
  std::vector<std::pair<const Node*, std::string>> keys_before;
  for (const Node& node : plan.graph.graph.nodes)
    if (node.kind == NodeKind::Effect && node.effect_replay.key) keys_before.emplace_back(&node, node.effect_replay.key());
  std::string failure;
  std::vector<const Node*> effects_called;
  std::vector<TensorList> values;
  cuda::detail::CapturedGraph* captured = nullptr;
  try {
    captured = rt.begin_capture(device_.index);
    values = run_nodes(plan, inputs, false, &effects_called);
  } catch (const Error& e) {
    failure = e.what();
  }
  if (captured) {
    const std::string ended = rt.end_capture(captured);
    if (!ended.empty()) failure += (failure.empty() ? "" : "; then ") + ended;
  }
  if (failure.empty())
    for (const auto& [node, key] : keys_before)
      if (node->effect_replay.key() != key)
        failure = "the host values of " + describe(*node) +
                  " changed while it was captured (its state was made by this step; raise "
                  "SessionOptions::cuda_graph_warmup)";
  ++g.captures;
  ++stats_.cuda_graph_captures;
  if (!failure.empty()) {
    // Nothing captured ran: the step is run again normally, so the host
    // bookkeeping of the effects called during the capture is undone.
    values.clear();
    if (captured) rt.destroy(captured);
    for (auto it = effects_called.rbegin(); it != effects_called.rend(); ++it)
      if ((*it)->effect_replay.undo) (*it)->effect_replay.undo();
    std::string reason = "the capture failed: " + failure;
    g.phase = CudaGraphState::Phase::GaveUp;  // set before the Error On raises
    g.reason = reason;
    ++stats_.cuda_graph_fallbacks;
    NABLA_CHECK(options_.cuda_graphs != CudaGraphs::On, "Session::run: SessionOptions::cuda_graphs is On, but this "
                "plan cannot be captured into a CUDA graph: ", reason,
                " (use CudaGraphs::Auto to run such plans normally)");
    return std::nullopt;
  }
  g.graph = captured;
  g.inputs = std::move(inputs);
  for (const ValueRef& r : plan.fetches) {
    const TensorList& vals = values[static_cast<std::size_t>(r.node)];
    g.outputs.push_back(vals.empty() ? Tensor() : vals[static_cast<std::size_t>(r.output)]);
  }
  for (const Node* e : effects_called) g.effect_keys.emplace_back(e, e->effect_replay.key());
  // Every variable the plan reads, assigns or lets an effect change.
  for (const Node& node : plan.graph.graph.nodes) {
    const int origin = plan.graph.origin[static_cast<std::size_t>(&node - plan.graph.graph.nodes.data())];
    std::vector<int> ids = node.mutates;
    if (node.kind == NodeKind::Variable) ids.push_back(origin);
    if (node.kind == NodeKind::Assign || node.kind == NodeKind::AssignAdd || node.kind == NodeKind::AssignSub)
      ids.push_back(node.target);
    for (int id : ids)
      if (auto it = variables_.find(id); it != variables_.end()) g.variables.emplace_back(id, place_of(it->second));
  }
  values.clear();  // intermediates go back to the graph's pool, for its replays only
  g.phase = CudaGraphState::Phase::Captured;
  g.warm_runs = 0;
  // The capture recorded the step without running it: one replay runs it.
  rt.launch(g.graph);
  std::vector<Tensor> results;
  for (const Tensor& t : g.outputs) {
    if (!t.defined()) {
      results.emplace_back();
    } else if (options_.fetches_to_host) {
      results.push_back(t.cpu());
      stats_.device_to_host_bytes += nbytes_of(t);
    } else {
      results.push_back(t.clone());
    }
  }
  return results;
}

std::string Session::cuda_graph_status(const std::vector<Tensor>& fetches, const Feeds& feeds) {
  const Plan& plan = plan_for(fetches, feeds);
  if (options_.cuda_graphs == CudaGraphs::Off || device_.type != DeviceType::CUDA) return "off";
  if (!plan.cuda_graph) return "warming up (0 of " + std::to_string(std::max(1, options_.cuda_graph_warmup)) + " runs)";
  const CudaGraphState& g = *plan.cuda_graph;
  switch (g.phase) {
    case CudaGraphState::Phase::GaveUp:
      return "not captured: " + g.reason;
    case CudaGraphState::Phase::Warming:
      return "warming up (" + std::to_string(g.warm_runs) + " of " +
             std::to_string(std::max(1, options_.cuda_graph_warmup)) + " runs)";
    case CudaGraphState::Phase::Captured:
      break;
  }
  char pool[64];
  std::snprintf(pool, sizeof pool, "%.1f MiB",
                static_cast<double>(cuda::detail::runtime().pool_bytes(g.graph)) / (1024.0 * 1024.0));
  return "captured (replayed " + std::to_string(g.replays) + " times; pool " + pool + ")";
}

}  // namespace nabla::graph

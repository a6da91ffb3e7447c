// Session: optimizes a copy of the graph once per graph version, builds one
// plan per fetch/feed set, and runs plans in node order (a topological order
// that keeps the user's creation order, so reads and assigns of a variable
// stay ordered as built).
#include "nabla/graph/session.h"

#include <algorithm>
#include <chrono>
#include <new>
#include <optional>

#include "nabla/core/backend.h"
#include "nabla/core/grad_mode.h"
#include "nabla/graph/control_flow_detail.h"
#include "nabla/graph/node_kernel.h"
#include "nabla/graph/passes/conv_layout.h"
#include "nabla/graph/passes/dead_code.h"
#include "nabla/graph/passes/fold_conv_bn.h"
#include "nabla/graph/passes/fuse_bn_relu.h"
#include "nabla/graph/passes/fuse_conv.h"
#include "nabla/graph/passes/fuse_elementwise.h"
#include "nabla/graph/passes/memory_plan.h"
#include "nabla/graph/passes/optimize.h"
#include "nabla/graph/passes/pool_grad_mask.h"
#include "nabla/graph/passes/transpose_matmul.h"
#include "nabla/graph/passes/variable_writes.h"
#include "nabla/graph/print.h"
#include "nabla/graph/run_op.h"
#include "nabla/graph/session_plan.h"
#include "nabla/graph/specialize.h"
#include "nabla/ops/kernel_registry.h"
#include "nabla/ops/memory_format_rules.h"

namespace nabla::graph {

namespace {

const Node& node_at(const GraphData& g, int id) { return g.nodes[static_cast<std::size_t>(id)]; }

// The node id of a fetch or feed key, which must be a value of graph `g`.
ValueRef ref_in(const std::shared_ptr<GraphData>& g, const Tensor& t, const char* what, std::size_t i) {
  Value* v = value_of(t);
  NABLA_CHECK(v, "Session::run: ", what, " ", i, " is not a graph value (got a ",
              t.defined() ? "concrete" : "undefined", " tensor)");
  NABLA_CHECK(v->graph == g || detail::root_of(v->graph) != g, "Session::run: ", what, " ", i, " ('",
              node_at(*v->graph, v->ref.node).name, "') was made inside ", v->graph->region,
              "; fetch the values the cond or while_loop returns");
  NABLA_CHECK(v->graph == g, "Session::run: ", what, " ", i, " ('", node_at(*v->graph, v->ref.node).name,
              "') belongs to another graph than this session's");
  return v->ref;
}

int64_t nbytes_of(const Tensor& t) { return t.numel() * static_cast<int64_t>(itemsize(t.dtype())); }

int64_t numel_of(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

bool shares_storage(const Tensor& t, Inputs ins) {
  for (const Tensor& i : ins)
    if (i.defined() && i.impl()->storage.get() == t.impl()->storage.get()) return true;
  return false;
}

// The seed of node `id`'s own generator in a graph with seed `graph_seed`:
// TensorFlow derives an op's seed from the graph seed and the op's id; here
// splitmix64 of both, so nearby ids give unrelated Philox streams.
uint64_t node_seed(uint64_t graph_seed, int id) {
  uint64_t z = graph_seed ^ (0x9E3779B97F4A7C15ull * (static_cast<uint64_t>(id) + 1));
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Whether `x`, about to be overwritten by `node` in place, is ours alone:
// no other handle, no view of its buffer, a plain CPU layout.
// Whether an op may compute output meta `m` straight into `t` (a variable
// it updates): a contiguous CPU tensor of that shape and dtype.
bool updatable_in_place(const Tensor& t, const OutputMeta& m) {
  return t.device().is_cpu() && t.is_contiguous() && t.dtype() == m.dtype && t.sizes() == m.sizes;
}

bool same_buffer(const Tensor& a, const Tensor& b) {
  return a.impl()->storage.get() == b.impl()->storage.get() && a.impl()->offset == b.impl()->offset;
}

bool can_write_in_place(const Node& node, Inputs ins) {
  const Tensor& x = ins[0];
  if (!x.defined() || x.impl()->use_count() != 1 || !x.impl()->storage ||
      x.impl()->storage->use_count() != 1 || !x.is_contiguous() || !x.device().is_cpu() ||
      !find_kernel(*node.op, DeviceType::CPU))
    return false;
  for (const Tensor& t : ins)
    if (is_reduced_float(t.dtype()) || !t.device().is_cpu()) return false;
  return x.dtype() == node.metas[0].dtype && x.sizes() == node.metas[0].sizes;
}

// The feeds checked against their placeholders (dtype, rank, known dims), as
// user placeholder id -> value.
std::unordered_map<int, Tensor> checked_feeds(const std::shared_ptr<GraphData>& graph, const Feeds& feeds) {
  std::unordered_map<int, Tensor> fed;
  for (std::size_t i = 0; i < feeds.size(); ++i) {
    const auto& [key, value] = feeds[i];
    ValueRef r = ref_in(graph, key, "feed", i);
    const Node& p = node_at(*graph, r.node);
    NABLA_CHECK(p.kind == NodeKind::Placeholder, "Session::run: feed ", i, " is node ", describe(p),
                ", not a placeholder; only placeholders can be fed");
    NABLA_CHECK(value.defined() && !value.is_symbolic(), "Session::run: the value fed to placeholder ", describe(p),
                " must be a concrete tensor");
    NABLA_CHECK(value.dtype() == p.metas[0].dtype, "Session::run: placeholder ", describe(p), " expects dtype ",
                p.metas[0].dtype, " but was fed ", value.dtype());
    const Shape& want = p.metas[0].sizes;
    bool fits = value.dim() == static_cast<int64_t>(want.size());
    for (std::size_t d = 0; fits && d < want.size(); ++d) fits = want[d] < 0 || want[d] == value.sizes()[d];
    NABLA_CHECK(fits, "Session::run: placeholder ", describe(p), " expects shape ", want,
                has_unknown_dims(want) ? " (-1: any size)" : "", " but was fed shape ", value.sizes());
    NABLA_CHECK(fed.emplace(r.node, value).second, "Session::run: placeholder ", describe(p), " is fed twice");
  }
  return fed;
}

std::vector<int> ids_of(const std::unordered_map<int, Tensor>& fed) {
  std::vector<int> ids;
  for (const auto& [id, value] : fed) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace

Session::Session(const Graph& graph, SessionOptions options) : Session(graph, kCPU, options) {}

Session::Session(const Graph& graph, Device device, SessionOptions options)
    : graph_(graph.data()), device_(device), options_(options) {
  backend_for(device, "graph::Session");  // present, or an error listing the devices that are
  ensure_optimized();
}

Session::~Session() = default;
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;

void Session::ensure_optimized() {
  bool stale = specializations_.empty() || graph_->nodes.size() != optimized_nodes_;
  for (const auto& [key, spec] : specializations_)
    for (const auto& [t, version] : spec.opt->read_constants) stale |= t.version() != version;
  if (!stale) return;
  // Placement (DeviceScope): partitioned plans only for a placed graph, so
  // that an unplaced one runs exactly as before.
  placed_ = options_.transport && options_.transport->world_size() > 1;
  for (const Node& n : graph_->nodes) placed_ |= !n.device.empty();
  if (placed_) check_placements();
  // Nodes may be added to the graph after the Session is made: optimize again.
  specializations_.clear();
  optimized_nodes_ = graph_->nodes.size();
  unknown_placeholders_.clear();
  for (std::size_t id = 0; id < graph_->nodes.size(); ++id) {
    const Node& n = graph_->nodes[id];
    // compile()'s bound variables are the tensors they were made from.
    if (n.kind == NodeKind::Variable && n.bound) variables_.try_emplace(static_cast<int>(id), n.value);
    if (n.kind == NodeKind::Placeholder && has_unknown_dims(n.metas[0].sizes))
      unknown_placeholders_.push_back(static_cast<int>(id));
  }
  // Without unknown dims there is one specialization, made now; otherwise
  // one per set of fed shapes, made when first fed.
  if (unknown_placeholders_.empty()) specialization({});
}

std::vector<int64_t> Session::shape_key(const std::unordered_map<int, Tensor>& fed) const {
  std::vector<int64_t> key;
  for (int id : unknown_placeholders_) {
    auto it = fed.find(id);
    key.push_back(it == fed.end() ? -1 : it->second.dim());
    if (it != fed.end()) key.insert(key.end(), it->second.sizes().begin(), it->second.sizes().end());
  }
  return key;
}

Session::Specialization& Session::specialization(const std::unordered_map<int, Tensor>& fed) {
  const std::vector<int64_t> key = shape_key(fed);
  Specialization& spec = specializations_[key];
  spec.last_used = ++uses_;
  if (spec.opt) return spec;
  // A new one: drop the least recently used past the limit (never this one).
  if (static_cast<int>(specializations_.size()) > std::max(1, options_.max_specializations)) {
    auto oldest = specializations_.end();
    for (auto it = specializations_.begin(); it != specializations_.end(); ++it)
      if (it->first != key && (oldest == specializations_.end() || it->second.last_used < oldest->second.last_used))
        oldest = it;
    specializations_.erase(oldest);
  }
  OptGraph g = unknown_placeholders_.empty()
                   ? copy_of_user_graph(*graph_)
                   : specialize(*graph_, [&](int id) -> std::optional<Shape> {
                       auto it = fed.find(id);
                       if (it == fed.end()) return std::nullopt;
                       return it->second.sizes();
                     });
  if (options_.optimize) optimize_in_place(g, static_cast<int>(graph_->nodes.size()));
  spec.opt = std::make_unique<OptGraph>(std::move(g));
  ++stats_.optimizations;
  return spec;
}

Session::Plan& Session::plan_for(Specialization& spec, const std::vector<ValueRef>& fetches,
                                 const std::vector<int>& fed) {
  std::vector<int> key;
  for (const ValueRef& f : fetches) key.insert(key.end(), {f.node, f.output});
  key.push_back(-1);
  key.insert(key.end(), fed.begin(), fed.end());
  std::unique_ptr<Plan>& slot = spec.plans[key];
  if (slot) return *slot;
  const OptGraph& opt = *spec.opt;
  auto plan = std::make_unique<Plan>();
  plan->graph = copy_of_optimized(opt);
  for (const ValueRef& f : fetches) {
    ValueRef v = opt.source_values[static_cast<std::size_t>(f.node)][static_cast<std::size_t>(f.output)];
    NABLA_CHECK(v.node >= 0, "Session::run: internal error: fetch '", node_at(*graph_, f.node).name,
                "' has no value in the optimized graph");
    plan->fetches.push_back(v);
  }
  prune_to_fetches(plan->graph, plan->fetches);
  // A placeholder left with unknown dims in what the fetches need was not fed.
  for (const Node& node : plan->graph.graph.nodes)
    NABLA_CHECK(node.kind != NodeKind::Placeholder || !has_unknown_dims(node.metas[0].sizes),
                "Session::run: the fetches need placeholder ", describe(node),
                ", which was not fed; add {placeholder, value} to the feeds");
  if (options_.optimize && !placed_ && transpose_matmul_results(plan->graph, plan->fetches) > 0)
    prune_to_fetches(plan->graph, plan->fetches);
  // ReLU's gradient masked on the pooled map before max pooling's gradient
  // scatters it (bitwise the same values; no node is left unused).
  if (options_.optimize && !placed_) mask_before_max_pool_backward(plan->graph, plan->fetches);
  // Fused chains, direct kernels and the memory plan are the CPU's (a tiled
  // interpreter over CPU kernels, buffers in host memory): a device session
  // runs every op through call() on the device. A placed graph runs each
  // node where it is placed (session_placement.cpp), unfused, without a
  // memory plan; its CPU nodes still call their kernels directly.
  const bool on_cpu = device_.is_cpu() && !placed_;
  // Convolution blocks first (eval-mode batch norm folded into the conv2d
  // before it, then conv2d -> relu becomes conv2d_relu, so conv -> batch norm
  // -> relu ends as one node), so that the elementwise chains are formed
  // around them.
  if (on_cpu && options_.optimize && options_.fuse && options_.fold_batch_norm &&
      fold_conv_batch_norm(plan->graph, plan->fetches) > 0)
    prune_to_fetches(plan->graph, plan->fetches);
  if (on_cpu && options_.optimize && options_.fuse && fuse_conv_relu(plan->graph, plan->fetches) > 0)
    prune_to_fetches(plan->graph, plan->fetches);
  // Training-mode batch norm -> relu, forward and backward (before the
  // elementwise chains, which would take the relu and its mask).
  if (on_cpu && options_.optimize && options_.fuse && fuse_batch_norm_relu(plan->graph, plan->fetches) > 0)
    prune_to_fetches(plan->graph, plan->fetches);
  if (on_cpu && options_.optimize && options_.fuse && fuse_elementwise(plan->graph, plan->fetches) > 0)
    prune_to_fetches(plan->graph, plan->fetches);
  // After fusion, so that the conversions stay nodes of their own (a fused
  // chain would read the permuted view contiguously, undoing it).
  if (on_cpu && options_.optimize && options_.channels_last_convolutions)
    channels_last_convolutions(plan->graph, plan->fetches);
  const GraphData& pg = plan->graph.graph;
  const std::size_t n = pg.nodes.size();
  if (on_cpu && options_.optimize && options_.fuse) {
    plan->variable_writes = plan_variable_writes(plan->graph, plan->fetches);
  } else {
    plan->variable_writes.into_input.assign(n, -1);
    plan->variable_writes.written.assign(n, 0);
    plan->variable_writes.outputs_into_inputs.assign(n, {});
  }
  if (placed_) place_plan(*plan);
  std::vector<char> writes_into_slots(n, 0);
  plan->direct.assign(n, nullptr);
  plan->scratch.resize(n);
  plan->dense.resize(n);
  for (std::size_t id = 0; id < n; ++id) {
    const Node& node = pg.nodes[id];
    const bool local_cpu = on_cpu || (placed_ && plan->where[id].rank == my_rank() && plan->where[id].device.is_cpu());
    plan->direct[id] = local_cpu ? direct_cpu_kernel(pg, node) : nullptr;
    if (node.fused) plan->scratch[id] = std::make_unique<FusedScratch>();
    writes_into_slots[id] = (plan->direct[id] != nullptr || node.fused != nullptr) &&
                            plan->variable_writes.into_input[id] < 0;
  }
  if (!device_.is_cpu() || placed_) plan->device_constants.resize(n);
  if (on_cpu && options_.optimize && options_.plan_memory) {
    plan->memory = plan_memory(pg, plan->fetches, writes_into_slots);
    plan->slots.resize(plan->memory.slot_metas.size());
  } else {
    plan->memory.release_after.resize(n);
    plan->memory.inplace.assign(n, 0);
  }
  ++stats_.plans_built;
  slot = std::move(plan);
  return *slot;
}

std::string Session::optimized_graph_text() {
  ensure_optimized();
  return to_text(*specialization({}).opt, *graph_);  // unknown dims stay unknown (nothing fed)
}

Session::Plan& Session::plan_for(const std::vector<Tensor>& fetches, const Feeds& feeds) {
  ensure_optimized();
  std::vector<ValueRef> refs;
  for (std::size_t i = 0; i < fetches.size(); ++i) refs.push_back(ref_in(graph_, fetches[i], "fetch", i));
  std::unordered_map<int, Tensor> fed = checked_feeds(graph_, feeds);
  return plan_for(specialization(fed), refs, ids_of(fed));
}

std::string Session::plan_text(const std::vector<Tensor>& fetches, const Feeds& feeds) {
  const Plan& plan = plan_for(fetches, feeds);
  std::string text = to_text(plan.graph.graph, graph_.get());
  // A placed graph: the values that cross, in the order they are moved.
  for (const Plan::Transfer& t : plan.transfers) {
    const Node& src = plan.graph.graph.nodes[static_cast<std::size_t>(t.src.node)];
    text += ::nabla::detail::concat("transfer ", src.name, t.src.output ? ":" + std::to_string(t.src.output) : "",
                                    ": ", placement_text(t.from), " -> ", placement_text(t.to), ", before ",
                                    plan.graph.graph.nodes[static_cast<std::size_t>(t.at)].name, "\n");
  }
  return text;
}


// Memory outside the tensor allocator (the plan's tables, a loop's history)
// throws std::bad_alloc: made a nabla::Error too.
std::vector<Tensor> Session::run(const std::vector<Tensor>& fetches, const Feeds& feeds) try {
  using Clock = std::chrono::steady_clock;
  // SessionOptions::max_run_bytes: what this run takes from the allocator, net.
  std::optional<MemoryBudgetScope> budget;
  if (options_.max_run_bytes >= 0) budget.emplace(options_.max_run_bytes, "the Session::run (SessionOptions::max_run_bytes)");
  const bool profiling = options_.profile;
  const Clock::time_point run_start = profiling ? Clock::now() : Clock::time_point{};
  ensure_optimized();
  std::unordered_map<int, Tensor> fed = checked_feeds(graph_, feeds);  // user placeholder id -> value
  std::vector<int> fed_ids = ids_of(fed);
  std::vector<ValueRef> fetch_refs;
  for (std::size_t i = 0; i < fetches.size(); ++i) fetch_refs.push_back(ref_in(graph_, fetches[i], "fetch", i));

  Plan& plan = plan_for(specialization(fed), fetch_refs, fed_ids);
  // CUDA graphs (session_cuda_graph.cpp): a capture or a replay makes the
  // whole run; not while profiling (each node is waited for then).
  if (options_.cuda_graphs != CudaGraphs::Off && device_.type == DeviceType::CUDA && !profiling) {
    if (std::optional<std::vector<Tensor>> results = run_cuda_graph(plan, fed)) {
      ++stats_.runs;
      return std::move(*results);
    }
  }
  std::vector<TensorList> values = run_nodes(plan, fed, profiling, nullptr);
  ++stats_.runs;
  if (plan.placed && options_.transport) options_.transport->finish_sends();
  std::vector<Tensor> result = fetch_results(plan, values);
  if (profiling) {
    plan.run_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - run_start).count();
    ++plan.profiled_runs;
  }
  return result;
} catch (const std::bad_alloc&) {
  fail("Session::run: out of memory (std::bad_alloc) outside the tensor allocator; with a graph from a file, check "
       "its loop bounds and shapes (SessionOptions::max_loop_iterations, max_run_bytes)");
}

std::vector<TensorList> Session::run_nodes(Plan& plan, const std::unordered_map<int, Tensor>& fed, bool profiling,
                                           std::vector<const Node*>* effects_called) {
  using Clock = std::chrono::steady_clock;
  const GraphData& user = *graph_;
  const OptGraph& pg = plan.graph;
  const std::size_t n = pg.graph.nodes.size();

  NoGradGuard no_grad;
  if (profiling && plan.node_ns.size() != n) plan.node_ns.assign(n, 0);
  Clock::time_point node_start = profiling ? Clock::now() : Clock::time_point{};
  std::vector<TensorList> values(n);
  // A placed graph: the values that crossed to another placement (by transfer).
  std::vector<Tensor> moved(plan.transfers.size());
  std::size_t id = 0;  // the node running
  // Input k of node `id`: its producer's value, or the copy moved to here.
  auto input_k = [&](std::size_t k) -> const Tensor& {
    const ValueRef& r = pg.graph.nodes[id].inputs[k];
    if (plan.placed && plan.input_transfer[id][k] >= 0) return moved[static_cast<std::size_t>(plan.input_transfer[id][k])];
    return values[static_cast<std::size_t>(r.node)][static_cast<std::size_t>(r.output)];
  };
  // Where node `id` runs: the session's device, or its placement's.
  auto here = [&]() -> Device { return plan.placed ? plan.where[id].device : device_; };
  // A device session moves host values in (counted); on the CPU a no-op.
  auto on_device_at = [&](const Tensor& t, Device d) -> Tensor {
    if (!t.defined() || t.device() == d) return t;
    stats_.host_to_device_bytes += nbytes_of(t);
    return t.to(d);
  };
  auto on_device = [&](const Tensor& t) -> Tensor { return on_device_at(t, here()); };
  auto initialized = [&](int id, const char* use) -> Tensor& {
    auto it = variables_.find(id);
    NABLA_CHECK(it != variables_.end(), "Session::run: variable ", describe(node_at(user, id)), " is ", use,
                " before it is initialized; run graph.global_variables_initializer() first");
    return it->second;
  };
  // Graph-level seed: user node id -> its generator (made on first use).
  auto node_generator = [&](int id) -> Generator& {
    auto [it, made] = node_generators_.try_emplace(id);
    if (made) it->second.manual_seed(node_seed(*user.seed, id));
    return it->second;
  };
  for (id = 0; id < n; ++id) {
    const Node& node = pg.graph.nodes[id];
    const int origin = pg.origin[id];
    if (plan.placed) {
      run_transfers(plan, id, values, moved);
      // Another process runs it (Group and Initializer nodes run in each).
      if (plan.where[id].rank != my_rank()) continue;
    }
    TensorList& out = values[id];
    std::optional<GeneratorScope> seeded;  // a random op of a seeded graph draws from its own generator
    if (user.seed && origin >= 0 && node.kind == NodeKind::Op && !node.fused && node.op && node.op->has(kRandom))
      seeded.emplace(node_generator(origin));
    switch (node.kind) {
      case NodeKind::Placeholder: {
        auto it = fed.find(origin);
        NABLA_CHECK(it != fed.end(), "Session::run: the fetches need placeholder ", describe(node),
                    ", which was not fed; add {placeholder, value} to the feeds");
        out.push_back(on_device(it->second));
        break;
      }
      case NodeKind::Constant:
        if (here().is_cpu()) {
          out.push_back(node.value);
        } else {
          Tensor& c = plan.device_constants[id];
          if (!c.defined()) c = on_device(node.value);
          out.push_back(c);
        }
        break;
      case NodeKind::Variable:
        out.push_back(initialized(origin, "read"));
        break;
      case NodeKind::Initializer:
        for (int v : node.variables) {
          const Node& var = node_at(user, v);
          if (var.bound) continue;  // always initialized: it is the tensor compile() bound
          // Each variable lives where it is placed (in its own process).
          Device at = device_;
          if (plan.placed) {
            const Placement p = placement_of_user_node(v);
            if (p.rank != my_rank()) continue;
            at = p.device;
          }
          if (var.init && user.seed) {
            GeneratorScope scope(node_generator(v));
            variables_[v] = on_device_at(var.init->draw(), at);
          } else {
            variables_[v] = var.init ? on_device_at(var.init->draw(), at) : on_device_at(var.value, at).clone();
          }
        }
        break;
      case NodeKind::Assign:
      case NodeKind::AssignAdd:
      case NodeKind::AssignSub: {
        const Tensor& value = input_k(0);
        if (plan.variable_writes.written[id]) {
          initialized(node.target, "updated");  // the chain before wrote the new value into it
        } else if (node.kind == NodeKind::Assign) {
          auto it = variables_.find(node.target);
          // Assigning initializes, as in TensorFlow; otherwise write in place.
          if (it == variables_.end())
            variables_[node.target] = on_device(value).clone();
          else
            it->second.copy_(value);
        } else {
          Tensor& v = initialized(node.target, "updated");
          if (node.kind == NodeKind::AssignAdd)
            v.add_(value);
          else
            v.sub_(value);
        }
        out.push_back(variables_[node.target]);
        break;
      }
      case NodeKind::Group:
        break;
      case NodeKind::Gradients:  // only in graphs with unknown dims, which run specialized
        fail("Session::run: internal error: node ", describe(node), " was not specialized to the fed shapes");
      case NodeKind::Effect: {  // compile(): an optimizer step on the bound variables
        std::vector<Tensor> ins;
        for (std::size_t k = 0; k < node.inputs.size(); ++k) ins.push_back(input_k(k));
        if (effects_called) effects_called->push_back(&node);  // before: its bookkeeping may run and then fail
        try {
          node.effect(ins);
        } catch (const Error& e) {
          throw Error(::nabla::detail::concat(e.what(), "\n  while running node ", describe(node)));
        }
        break;
      }
      case NodeKind::Cond:  // control flow: runs subgraphs (control_flow_run.cpp)
      case NodeKind::While:
      case NodeKind::WhileGrad: {
        TensorList ins;
        for (std::size_t k = 0; k < node.inputs.size(); ++k) ins.push_back(input_k(k));
        out = detail::run_control_flow(node, ins, options_, stats_);
        break;
      }
      case NodeKind::Op: {
        TensorList ins;
        for (std::size_t k = 0; k < node.inputs.size(); ++k) {
          const ValueRef& r = node.inputs[k];
          // An in-place candidate takes its input out of the table, so that
          // its handle is the only one when checked below.
          if (k == 0 && plan.memory.inplace[id])
            ins.push_back(std::move(values[static_cast<std::size_t>(r.node)][static_cast<std::size_t>(r.output)]));
          else
            ins.push_back(input_k(k));
        }
        if (node.fused) {
          // A fused chain reads its inputs contiguously: a strided view (a
          // transposed gradient) is copied once, into a buffer of the plan,
          // and the copy replaces the view for the chains that read it later
          // (unless it views a variable, which a later assign may change).
          for (std::size_t k = 0; k < ins.size(); ++k) {
            if (ins[k].is_contiguous() || ins[k].numel() == 1 || !ins[k].device().is_cpu() ||
                static_cast<int>(k) == plan.variable_writes.into_input[id])
              continue;
            const ValueRef& r = node.inputs[k];
            auto& dense = plan.dense[static_cast<std::size_t>(r.node)];
            dense.resize(pg.graph.nodes[static_cast<std::size_t>(r.node)].metas.size());
            Tensor& copy = dense[static_cast<std::size_t>(r.output)];
            if (!copy.defined() || copy.impl()->use_count() != 1 || copy.impl()->storage->use_count() != 1 ||
                copy.sizes() != ins[k].sizes() || copy.dtype() != ins[k].dtype()) {
              copy = make_empty(ins[k].sizes(), ins[k].dtype(), kCPU);
              stats_.bytes_allocated += nbytes_of(copy);
            }
            copy.copy_(ins[k]);  // a transposed matrix goes in blocks (kernels/cpu/cast.cpp)
            bool views_variable = false;
            for (const auto& [var_id, var] : variables_)
              views_variable |= var.impl()->storage.get() == ins[k].impl()->storage.get();
            ins[k] = copy;
            if (!views_variable) values[static_cast<std::size_t>(r.node)][static_cast<std::size_t>(r.output)] = copy;
          }
        }
        Inputs in_span(ins.data(), ins.size());
        if (node.fused && plan.variable_writes.into_input[id] >= 0) {
          // The new value of a variable, computed into its buffer.
          Tensor target = ins[static_cast<std::size_t>(plan.variable_writes.into_input[id])];
          if (target.device().is_cpu() && target.is_contiguous() && target.dtype() == node.metas[0].dtype &&
              target.sizes() == node.metas[0].sizes) {
            run_fused(*node.fused, in_span, target, *plan.scratch[id], &stats_.bytes_allocated);
            target.impl()->storage->bump_version();
            ++stats_.variable_writes;
          } else {
            Tensor result = output_buffer(plan, id, 0, in_span);
            run_fused(*node.fused, in_span, result, *plan.scratch[id], &stats_.bytes_allocated);
            target.copy_(result);
          }
          out.push_back(std::move(target));
          ++stats_.fused_ops_executed;
        } else if (node.fused) {
          Tensor result = output_buffer(plan, id, 0, in_span);
          run_fused(*node.fused, in_span, result, *plan.scratch[id], &stats_.bytes_allocated);
          out.push_back(std::move(result));
          ++stats_.fused_ops_executed;
        } else {
          try {
            const std::vector<int>& into = plan.variable_writes.outputs_into_inputs[id];
            if (plan.direct[id] && inputs_match(pg.graph, node, in_span)) {
              // Resolved when the plan was built: straight to the kernel,
              // into the variables it updates (see below) or into slots.
              for (std::size_t o = 0; o < node.metas.size(); ++o) {
                const int j = into.empty() ? -1 : into[o];
                if (j >= 0 && updatable_in_place(ins[static_cast<std::size_t>(j)], node.metas[o]))
                  out.push_back(ins[static_cast<std::size_t>(j)]);
                else
                  out.push_back(output_buffer(plan, id, o, in_span));
              }
              plan.direct[id](in_span, node.attrs, std::span<Tensor>(out.data(), out.size()));
              ++stats_.direct_ops_executed;
            } else if (plan.memory.inplace[id] && can_write_in_place(node, in_span)) {
              Tensor target = ins[0];
              find_kernel(*node.op, DeviceType::CPU)(in_span, node.attrs, std::span<Tensor>(&target, 1));
              out.push_back(std::move(target));
              ++stats_.inplace_ops_executed;
            } else {
              out = run_op_node(node, in_span);
              for (Tensor& o : out) {
                if (o.defined() && !shares_storage(o, in_span)) stats_.bytes_allocated += nbytes_of(o);
                o = on_device(o);  // an op without inputs (a factory) made it on the CPU
              }
            }
            // Outputs planned to update a variable (passes/variable_writes.h)
            // that were not computed in it: copied in, since the assign that
            // follows only hands the variable on.
            for (std::size_t o = 0; o < into.size(); ++o) {
              if (into[o] < 0) continue;
              Tensor& variable = ins[static_cast<std::size_t>(into[o])];
              if (same_buffer(out[o], variable)) {
                variable.impl()->storage->bump_version();
                ++stats_.variable_writes;
              } else {
                variable.copy_(out[o]);
              }
              out[o] = variable;
            }
          } catch (const Error& e) {
            throw Error(::nabla::detail::concat(e.what(), "\n  while running node ", describe(node)));
          }
        }
        ++stats_.ops_executed;
        break;
      }
    }
    ++stats_.nodes_executed;
    // Values whose last consumer this was go back to the caching allocator.
    for (const ValueRef& r : plan.memory.release_after[id]) {
      TensorList& vals = values[static_cast<std::size_t>(r.node)];
      if (static_cast<std::size_t>(r.output) < vals.size()) vals[static_cast<std::size_t>(r.output)] = Tensor();
    }
    if (profiling) {
      // On an accelerator a node's kernels run after it returns: waiting for
      // them charges each node its device time (and serializes the run).
      if (!device_.is_cpu()) synchronize(device_);
      const Clock::time_point now = Clock::now();
      plan.node_ns[id] += std::chrono::duration_cast<std::chrono::nanoseconds>(now - node_start).count();
      node_start = now;
    }
  }
  return values;
}

std::vector<Tensor> Session::fetch_results(const Plan& plan, const std::vector<TensorList>& values) {
  std::vector<Tensor> result;
  for (const ValueRef& r : plan.fetches) {
    const TensorList& vals = values[static_cast<std::size_t>(r.node)];
    if (vals.empty()) {
      result.emplace_back();
      continue;
    }
    Tensor t = vals[static_cast<std::size_t>(r.output)];
    // Variables are updated in place by later runs: hand out copies of them.
    bool aliases = false;
    for (const auto& [id, v] : variables_) aliases |= t.impl()->storage.get() == v.impl()->storage.get();
    if ((!device_.is_cpu() || plan.placed) && options_.fetches_to_host && t.defined() && !t.device().is_cpu()) {
      result.push_back(t.cpu());  // a copy: never aliases a variable
      stats_.device_to_host_bytes += nbytes_of(result.back());
    } else {
      result.push_back(aliases ? t.clone() : t);
      if (device_.is_cpu()) stats_.device_to_host_bytes += nbytes_of(result.back());
    }
  }
  return result;
}

Tensor Session::output_buffer(Plan& plan, std::size_t id, std::size_t o, Inputs ins) {
  const Node& node = plan.graph.graph.nodes[id];
  const OutputMeta& m = node.metas[o];
  // Out of memory (SessionOptions::max_run_bytes) names the op.
  const char* api = node.op ? node.op->name.data() : "Session::run";
  // The format eager mode gives this op's output for these inputs
  // (channels-last after channels-last inputs: passes/conv_layout.h); a fused
  // chain reads its inputs contiguously and writes contiguously.
  const MemoryFormat format = node.op && !node.fused ? ::nabla::detail::output_memory_format(*node.op, ins, m.sizes)
                                                     : MemoryFormat::Contiguous;
  const int s = plan.memory.slot.empty() ? -1 : plan.memory.slot[id][o];
  if (s < 0) {
    stats_.bytes_allocated += numel_of(m.sizes) * static_cast<int64_t>(itemsize(m.dtype));
    return make_empty(m.sizes, m.dtype, kCPU, format, api);
  }
  Tensor& buffer = plan.slots[static_cast<std::size_t>(s)];
  // The slot's buffer is reused only if nothing else holds it: no value
  // fetched by an earlier run that the caller kept, no view of it. An
  // in-place node's input 0 is the buffer itself (its second handle).
  const bool in_place = o == 0 && plan.memory.inplace[id] && !ins.empty() && ins[0].defined() && buffer.defined() &&
                        ins[0].impl() == buffer.impl();
  if (!buffer.defined() || buffer.impl()->use_count() != (in_place ? 2 : 1) ||
      buffer.impl()->storage->use_count() != 1) {
    buffer = make_empty(m.sizes, m.dtype, kCPU, format, api);
    stats_.bytes_allocated += nbytes_of(buffer);
  } else if (!in_place && buffer.strides() != memory_format_strides(m.sizes, format, api)) {
    // Values of one slot may differ in format (a slot is shared by values of
    // one shape and dtype): the buffer, ours alone, is restrided in place.
    buffer.impl()->strides = memory_format_strides(m.sizes, format, api);
  } else if (in_place) {
    ++stats_.inplace_ops_executed;
  }
  return buffer;
}

Tensor Session::variable_value(const Tensor& variable) const {
  ValueRef r = ref_in(graph_, variable, "variable", 0);
  const Node& node = node_at(*graph_, r.node);
  NABLA_CHECK(node.kind == NodeKind::Variable, "Session::variable_value: node ", describe(node), " is not a variable");
  NABLA_CHECK(!placed_ || placement_of_user_node(r.node).rank == my_rank(), "Session::variable_value: variable ",
              describe(node), " is placed on '", node.device, "' and lives in that process, not in this one (rank ",
              my_rank(), "); read it there");
  auto it = variables_.find(r.node);
  NABLA_CHECK(it != variables_.end(), "Session::variable_value: variable ", describe(node),
              " is not initialized; run graph.global_variables_initializer() first");
  return it->second.clone();
}

}  // namespace nabla::graph

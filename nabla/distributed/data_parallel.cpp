// DistributedDataParallel (see data_parallel.h).
#include "nabla/distributed/data_parallel.h"

#include <cstring>
#include <unordered_set>

#include "nabla/autograd/hooks.h"
#include "nabla/autograd/node.h"
#include "nabla/core/error.h"
#include "nabla/core/grad_mode.h"
#include "nabla/ops/factory.h"

namespace nabla::distributed {
namespace {

void check_replicable(const Tensor& t, const std::string& name, const char* what) {
  NABLA_CHECK(t.device() == kCPU && t.is_contiguous(), "DistributedDataParallel: ", what, " '", name,
              "' must be a contiguous CPU tensor (the MPI backend's reach), got device ", t.device().str(),
              t.is_contiguous() ? "" : ", non-contiguous");
}

size_t bytes_of(const Tensor& p) { return static_cast<size_t>(p.numel()) * itemsize(p.dtype()); }

}  // namespace

// Note [Bucket order]: MPI matches collectives by the order each rank starts
// them, so buckets start strictly in index order on every rank: a bucket
// whose gradients are all final waits for the ones before it. Ranks whose
// graphs differ (a parameter unused on one) start the same buckets in the same
// order, only some later (at the end of backward).
struct DistributedDataParallel::Reducer {
  struct Bucket {
    std::vector<Tensor> params;  // one dtype
    Tensor flat;                 // their gradients, end to end
    std::vector<bool> ready;     // per param: final in this backward
    std::vector<bool> unused;    // per param: find_unused_parameters found no path to it
    std::vector<const autograd::Node*> accumulators;  // per param: its AccumulateGrad node
    size_t pending = 0;          // params not ready yet
    Work work;                   // started: its all_reduce
    bool started = false;
  };
  Reducer(ProcessGroup g, const DataParallelOptions& o)
      : group(g), overlap(o.overlap), find_unused(o.overlap && o.find_unused_parameters) {}
  ProcessGroup group;
  std::vector<Bucket> buckets;
  bool overlap;
  bool find_unused;
  std::unordered_set<const autograd::Node*> reached;  // find_unused: by the forwards since the last round
  bool sync_enabled = true;
  bool in_round = false;           // buckets of this backward are being reduced; the end is queued
  bool reduced_since_sync = false;  // a round finished since the last sync_gradients()
  size_t next = 0;                 // the next bucket to start (Note [Bucket order])

  // The hook of parameter i of bucket b: its gradient is final in this backward.
  void on_gradient_ready(size_t b, size_t i, const std::weak_ptr<Reducer>& self) {
    if (!sync_enabled) return;  // no_sync: the sum stays local
    if (!in_round) {
      in_round = true;
      autograd::queue_callback([self] {
        if (auto r = self.lock()) r->finish_round();
      });
      if (find_unused) mark_unreached_ready();
    }
    Bucket& k = buckets[b];
    if (k.unused[i]) {
      // Counted as ready already: right while its bucket waits (the gradient
      // is copied when it starts), wrong once it has left.
      NABLA_CHECK(!k.started, "DistributedDataParallel(find_unused_parameters): a parameter of bucket ", b,
                  " got a gradient although no forward's graph reached it, and its bucket was already being "
                  "reduced; backward must start from what this DDP's forward computed (ddp(x), not "
                  "ddp.module()(x))");
    } else if (!k.started && !k.ready[i]) {
      k.ready[i] = true;
      --k.pending;
    }
    while (next < buckets.size() && buckets[next].pending == 0) start(next++);
    // MPI progresses a non-blocking collective only inside MPI calls (no
    // progress thread): poll the ones in flight from each hook.
    for (size_t s = 0; s < next; ++s) buckets[s].work.is_completed();
  }

  // find_unused_parameters, at the first hook of a backward: the parameters
  // no forward since the last round reached get no gradient in it.
  void mark_unreached_ready() {
    for (Bucket& k : buckets)
      for (size_t i = 0; i < k.params.size(); ++i)
        if (!reached.count(k.accumulators[i]) && !k.ready[i]) {
          k.ready[i] = k.unused[i] = true;
          --k.pending;
        }
    reached.clear();
  }

  // find_unused_parameters, in forward: the nodes reachable from its output.
  void walk(const Tensor& out) {
    std::vector<const autograd::Node*> stack;
    if (auto e = autograd::gradient_edge(out); e.valid() && reached.insert(e.node.get()).second)
      stack.push_back(e.node.get());
    while (!stack.empty()) {
      const autograd::Node* n = stack.back();
      stack.pop_back();
      for (const autograd::Edge& e : n->next_edges)
        if (e.node && reached.insert(e.node.get()).second) stack.push_back(e.node.get());
    }
  }

  void start(size_t b) {
    Bucket& k = buckets[b];
    auto* dst = static_cast<char*>(k.flat.raw_data());
    for (const Tensor& p : k.params) {
      const Tensor g = p.grad();
      if (g.defined()) {
        NABLA_CHECK(g.device() == kCPU && g.dtype() == p.dtype() && g.numel() == p.numel(),
                    "DistributedDataParallel: a gradient must be a CPU tensor of its parameter's dtype and size, "
                    "got ", g.device().str(), " ", dtype_name(g.dtype()), " with ", g.numel(), " elements for a ",
                    dtype_name(p.dtype()), " parameter of ", p.numel());
        std::memcpy(dst, g.contiguous().raw_data(), bytes_of(p));
      } else {
        std::memset(dst, 0, bytes_of(p));  // unused here: zero, so the ranks' calls match
      }
      dst += bytes_of(p);
    }
    k.work = group.all_reduce_async(k.flat, ReduceOp::Mean);
    k.started = true;
  }

  // Starts the buckets not started yet, waits for every one and writes the
  // means into .grad; then the next backward starts a new round.
  void finish_round() {
    NoGradGuard no_grad;
    while (next < buckets.size()) start(next++);
    for (Bucket& k : buckets) {
      k.work.wait();
      const auto* src = static_cast<const char*>(k.flat.raw_data());
      for (const Tensor& p : k.params) {
        Tensor g = p.grad();
        if (!g.defined() || !g.is_contiguous()) {
          g = empty(p.sizes(), p.dtype());
          std::memcpy(g.raw_data(), src, bytes_of(p));
          Tensor(p).set_grad(g);
        } else {
          std::memcpy(g.raw_data(), src, bytes_of(p));
        }
        src += bytes_of(p);
      }
      k.work = Work();
      k.started = false;
      k.ready.assign(k.params.size(), false);
      k.unused.assign(k.params.size(), false);
      k.pending = k.params.size();
    }
    reached.clear();
    next = 0;
    in_round = false;
    reduced_since_sync = true;
  }
};

DistributedDataParallel::DistributedDataParallel(std::shared_ptr<nn::Module> module, double bucket_cap_mb,
                                                 ProcessGroup group, bool overlap)
    : DistributedDataParallel(std::move(module), DataParallelOptions{bucket_cap_mb, overlap, false}, group) {}

DistributedDataParallel::DistributedDataParallel(std::shared_ptr<nn::Module> module,
                                                 const DataParallelOptions& options, ProcessGroup group)
    : module_(std::move(module)), group_(group), reducer_(std::make_shared<Reducer>(group, options)) {
  const double bucket_cap_mb = options.bucket_cap_mb;
  NABLA_CHECK(module_ != nullptr, "DistributedDataParallel: module is null");
  NABLA_CHECK(bucket_cap_mb > 0, "DistributedDataParallel: bucket_cap_mb must be positive, got ", bucket_cap_mb);
  // Every replica starts from rank 0's state. The writes are in-place data
  // changes of leaves, outside autograd.
  NoGradGuard no_grad;
  for (const auto& [name, p] : module_->named_parameters()) {
    check_replicable(p, name, "parameter");
    group_.broadcast(p, 0);
  }
  for (const auto& [name, b] : module_->named_buffers()) {
    if (!b.defined()) continue;
    check_replicable(b, name, "buffer");
    group_.broadcast(b, 0);
  }
  // Buckets in reverse registration order, as PyTorch does: the last layers'
  // gradients are ready first in backward, so their buckets start first.
  auto& buckets = reducer_->buckets;
  const double cap_bytes = bucket_cap_mb * 1024 * 1024;
  auto params = module_->parameters();
  double bytes = 0;
  for (auto it = params.rbegin(); it != params.rend(); ++it) {
    const Tensor& p = *it;
    if (!p.requires_grad()) continue;  // frozen: no gradient anywhere
    NABLA_CHECK(p.dtype() == kFloat32 || p.dtype() == kFloat64,
                "DistributedDataParallel: trainable parameters must be float32 or float64 (the MPI mean's dtypes), "
                "got ",
                dtype_name(p.dtype()));
    const double pb = static_cast<double>(bytes_of(p));
    if (buckets.empty() || buckets.back().params.front().dtype() != p.dtype() || bytes + pb > cap_bytes) {
      if (buckets.empty() || !buckets.back().params.empty()) buckets.push_back({});
      bytes = 0;
    }
    buckets.back().params.push_back(p);
    bytes += pb;
  }
  for (auto& k : buckets) {
    int64_t n = 0;
    for (const auto& p : k.params) n += p.numel();
    k.flat = zeros({n}, k.params.front().dtype());
    k.ready.assign(k.params.size(), false);
    k.unused.assign(k.params.size(), false);
    k.pending = k.params.size();
    for (const Tensor& p : k.params) k.accumulators.push_back(autograd::gradient_edge(p).node.get());
  }
  if (!options.overlap) return;
  // The hooks hold the reducer weakly: a model that outlives its DDP keeps
  // hooks that do nothing.
  std::weak_ptr<Reducer> weak = reducer_;
  for (size_t b = 0; b < buckets.size(); ++b)
    for (size_t i = 0; i < buckets[b].params.size(); ++i)
      autograd::register_post_accumulate_grad_hook(buckets[b].params[i], [weak, b, i](const Tensor&) {
        if (auto r = weak.lock()) r->on_gradient_ready(b, i, weak);
      });
}

bool DistributedDataParallel::overlap() const { return reducer_->overlap; }

Tensor DistributedDataParallel::forward(const Tensor& x) {
  Tensor out = module_->forward(x);
  Reducer& r = *reducer_;
  if (r.find_unused && r.sync_enabled && GradMode::is_enabled()) r.walk(out);
  return out;
}

DistributedDataParallel::NoSync::NoSync(DistributedDataParallel& d) : ddp_(&d), was_(d.reducer_->sync_enabled) {
  d.reducer_->sync_enabled = false;
}

DistributedDataParallel::NoSync::~NoSync() { ddp_->reducer_->sync_enabled = was_; }

std::vector<int64_t> DistributedDataParallel::bucket_sizes() const {
  std::vector<int64_t> out;
  for (const auto& k : reducer_->buckets) out.push_back(static_cast<int64_t>(k.params.size()));
  return out;
}

void DistributedDataParallel::sync_gradients() {
  Reducer& r = *reducer_;
  if (!r.sync_enabled) return;
  // Reduced during a backward since the last call: done. A round still open
  // (a backward that threw after starting buckets) is finished here.
  if (r.overlap && r.reduced_since_sync && !r.in_round) {
    r.reduced_since_sync = false;
    return;
  }
  r.finish_round();
  r.reduced_since_sync = false;
}

}  // namespace nabla::distributed

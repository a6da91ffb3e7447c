// Grouping is a union of each eligible node with the eligible producers of
// its inputs that it alone uses; a group is then a tree whose root (its last
// node) replaces it. Running: see run_fused.
#include "nabla/ops/kernel_registry.h"
#include "nabla/graph/passes/fuse_elementwise.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "nabla/core/parallel.h"

namespace nabla::graph {

namespace {

bool is_state_change(NodeKind k) { return changes_state(k); }

int64_t numel_of(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

}  // namespace

bool fusable_elementwise(const OptGraph& g, int id) {
  const Node& n = g.node(id);
  if (n.kind != NodeKind::Op || n.fused || !n.op->has(kElementwise) || n.op->has(kRandom) || n.op->has(kView) ||
      n.op->composite || !find_kernel(*n.op, DeviceType::CPU) || n.metas.size() != 1 ||
      !n.control_inputs.empty() || n.op->name == "view")
    return false;
  const OutputMeta& m = n.metas[0];
  if (is_reduced_float(m.dtype)) return false;
  for (const ValueRef& r : n.inputs) {
    const OutputMeta& im = g.node(r.node).metas[static_cast<std::size_t>(r.output)];
    if (is_reduced_float(im.dtype)) return false;
    if (!(im.sizes == m.sizes) && numel_of(im.sizes) != 1) return false;
  }
  return true;
}

namespace {

int find(std::vector<int>& parent, int x) {
  while (parent[static_cast<std::size_t>(x)] != x)
    x = parent[static_cast<std::size_t>(x)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
  return x;
}

// A view of `t`'s memory: `len` elements from flat element `start` (t contiguous).
Tensor flat_slice(const Tensor& t, int64_t start, int64_t len) {
  return Tensor(make_ref<TensorImpl>(t.impl()->storage, Shape{len}, Shape{1}, t.impl()->offset + start, t.dtype(),
                                     t.device()));
}

// A single-element tensor as a 0-dim view, so it broadcasts to any tile.
Tensor as_scalar(const Tensor& t) {
  return Tensor(make_ref<TensorImpl>(t.impl()->storage, Shape{}, Shape{}, t.impl()->offset, t.dtype(), t.device()));
}

}  // namespace

const OpDef& fused_elementwise_op() {
  static constinit const OpDef op{.name = "fused_elementwise", .num_inputs = -1, .flags = kElementwise};
  return op;
}

std::string fused_chain_text(const FusedChain& c) {
  std::string s = "fused[";
  for (std::size_t i = 0; i < c.steps.size(); ++i) s += (i ? ", " : "") + std::string(c.steps[i].op->name);
  return s + "]";
}

int fuse_elementwise(OptGraph& g, const std::vector<ValueRef>& fetches) {
  g.apply_forwards();
  const int n = g.size();
  std::vector<int> uses(static_cast<std::size_t>(n), 0);  // data uses of each node's (single) output
  std::vector<char> pinned(static_cast<std::size_t>(n), 0);  // fetched or a control input
  for (const Node& node : g.graph.nodes) {
    for (const ValueRef& r : node.inputs) ++uses[static_cast<std::size_t>(r.node)];
    for (int c : node.control_inputs) pinned[static_cast<std::size_t>(c)] = 1;
  }
  for (const ValueRef& f : fetches) pinned[static_cast<std::size_t>(f.node)] = 1;
  std::vector<int> state_changes_before(static_cast<std::size_t>(n) + 1, 0);  // prefix counts
  for (int i = 0; i < n; ++i)
    state_changes_before[static_cast<std::size_t>(i) + 1] =
        state_changes_before[static_cast<std::size_t>(i)] + (is_state_change(g.node(i).kind) ? 1 : 0);

  std::vector<int> parent(static_cast<std::size_t>(n)), first(static_cast<std::size_t>(n));
  std::vector<char> ok(static_cast<std::size_t>(n), 0);
  for (int i = 0; i < n; ++i) {
    parent[static_cast<std::size_t>(i)] = first[static_cast<std::size_t>(i)] = i;
    ok[static_cast<std::size_t>(i)] = fusable_elementwise(g, i);
  }
  for (int i = 0; i < n; ++i) {
    if (!ok[static_cast<std::size_t>(i)]) continue;
    const Node& node = g.node(i);
    for (const ValueRef& r : node.inputs) {
      int p = r.node;
      if (!ok[static_cast<std::size_t>(p)] || uses[static_cast<std::size_t>(p)] != 1 || pinned[static_cast<std::size_t>(p)])
        continue;
      if (!(g.node(p).metas[0].sizes == node.metas[0].sizes)) continue;
      int rp = find(parent, p), ri = find(parent, i);
      if (rp == ri) continue;
      int lo = std::min(first[static_cast<std::size_t>(rp)], first[static_cast<std::size_t>(ri)]);
      if (state_changes_before[static_cast<std::size_t>(i)] != state_changes_before[static_cast<std::size_t>(lo)])
        continue;  // an assign lies between: keep the read where it was
      parent[static_cast<std::size_t>(rp)] = ri;
      first[static_cast<std::size_t>(ri)] = lo;
    }
  }

  std::map<int, std::vector<int>> groups;  // root set -> members in id order
  for (int i = 0; i < n; ++i)
    if (ok[static_cast<std::size_t>(i)]) groups[find(parent, i)].push_back(i);
  int made = 0;
  for (auto& [root_set, members] : groups) {
    if (members.size() < 2) continue;
    const int root = members.back();
    auto chain = std::make_shared<FusedChain>();
    std::vector<ValueRef> externals;
    std::map<int, int> step_of;  // member node -> step index
    for (int m : members) {
      const Node& node = g.node(m);
      FusedChain::Step s;
      s.op = node.op;
      s.attrs = node.attrs;
      s.dtype = node.metas[0].dtype;
      s.node = describe(node);
      for (const ValueRef& r : node.inputs) {
        auto it = step_of.find(r.node);
        if (it != step_of.end()) {
          s.args.push_back(-(it->second + 1));
          continue;
        }
        auto e = std::find_if(externals.begin(), externals.end(),
                              [&](const ValueRef& x) { return x.node == r.node && x.output == r.output; });
        s.args.push_back(static_cast<int>(e - externals.begin()));
        if (e == externals.end()) externals.push_back(r);
      }
      step_of[m] = static_cast<int>(chain->steps.size());
      chain->steps.push_back(std::move(s));
    }
    Node& r = g.node(root);
    r.fused = chain;
    r.op = &fused_elementwise_op();
    r.attrs = Attrs();
    r.inputs = externals;
    ++made;
  }
  return made;
}

TensorList FusedScratch::take(const FusedChain& c, int64_t cap, int64_t* bytes_allocated) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    // A set is reused when it has room for this run's tiles (the node's
    // shape is fixed, so it always has after the first run).
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (!it->empty() && (*it)[0].numel() < cap) continue;
      TensorList set = std::move(*it);
      free_.erase(it);
      return set;
    }
  }
  TensorList set;
  auto add = [&](DType dtype) {
    set.push_back(make_empty({cap}, dtype, kCPU));
    *bytes_allocated += cap * static_cast<int64_t>(itemsize(dtype));
  };
  for (std::size_t s = 0; s + 1 < c.steps.size(); ++s) add(c.steps[s].dtype);
  return set;
}

void FusedScratch::give_back(TensorList scratch) {
  std::lock_guard<std::mutex> lock(mu_);
  free_.push_back(std::move(scratch));
}

void run_fused(const FusedChain& c, Inputs inputs, const Tensor& out, FusedScratch& scratch, int64_t* bytes_allocated) {
  const int64_t total = out.numel();
  // External inputs: contiguous full tensors, or single elements to broadcast.
  TensorList ext;
  for (const Tensor& t : inputs) {
    NABLA_CHECK(t.device().is_cpu(), "Session::run: fused elementwise ops run on CPU only, got an input on ",
                t.device());
    if (t.numel() == 1 && total != 1) {
      ext.push_back(as_scalar(t.is_contiguous() ? t : t.contiguous()));
    } else {
      ext.push_back(t.is_contiguous() ? t : t.contiguous());
    }
  }
  const std::size_t last = c.steps.size() - 1;
  const int64_t tiles = (total + kFusedTile - 1) / kFusedTile;
  const int64_t cap = std::min<int64_t>(kFusedTile, total);
  std::mutex mu;
  auto run_tiles = [&](int64_t t0, int64_t t1) {
    // Tile-sized scratch per intermediate, reused for every tile of this chunk.
    int64_t bytes = 0;
    TensorList buffers = scratch.take(c, cap, &bytes);
    if (bytes) {
      std::lock_guard<std::mutex> lock(mu);
      *bytes_allocated += bytes;
    }
    // Tile views, made once per chunk and moved along from tile to tile
    // (their offset and length set per tile): per external input (a 0-dim
    // single element stays as it is), per intermediate, and the output.
    TensorList ext_tiles, step_tiles;
    for (const Tensor& e : ext) ext_tiles.push_back(e.dim() == 0 && total != 1 ? e : flat_slice(e, 0, cap));
    for (std::size_t s = 0; s < last; ++s) step_tiles.push_back(flat_slice(buffers[s], 0, cap));
    step_tiles.push_back(flat_slice(out, 0, cap));
    auto place = [](Tensor& view, int64_t offset, int64_t len) {
      TensorImpl* impl = view.impl();
      impl->offset = offset;
      impl->sizes[0] = len;
      impl->numel = len;
    };
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t start = t * kFusedTile, len = std::min(kFusedTile, total - start);
      for (std::size_t e = 0; e < ext.size(); ++e)
        if (ext_tiles[e].dim() == 1) place(ext_tiles[e], ext[e].impl()->offset + start, len);
      for (std::size_t s = 0; s < last; ++s) place(step_tiles[s], buffers[s].impl()->offset, len);
      place(step_tiles[last], out.impl()->offset + start, len);
      for (std::size_t s = 0; s <= last; ++s) {
        const FusedChain::Step& step = c.steps[s];
        SmallVector<Tensor, 3> ins;
        for (int a : step.args)
          ins.push_back(a < 0 ? step_tiles[static_cast<std::size_t>(-a - 1)] : ext_tiles[static_cast<std::size_t>(a)]);
        try {
          find_kernel(*step.op, DeviceType::CPU)(Inputs(ins.data(), ins.size()), step.attrs,
                                                               std::span<Tensor>(&step_tiles[s], 1));
        } catch (const Error& e) {
          scratch.give_back(std::move(buffers));
          throw Error(::nabla::detail::concat(e.what(), "\n  while running node ", step.node, " (fused into ",
                                              fused_chain_text(c), ")"));
        }
      }
    }
    scratch.give_back(std::move(buffers));
  };
  // Chunks of tiles on the pool; each chunk takes its own scratch.
  parallel_for(0, tiles, std::max<int64_t>(1, kParallelGrain / kFusedTile), run_tiles);
}

}  // namespace nabla::graph

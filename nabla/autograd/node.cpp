#include "nabla/autograd/node.h"

#include "nabla/autograd/hooks.h"
#include "nabla/core/grad_mode.h"
#include "nabla/ops/memory_format.h"
#include "nabla/ops/ops.h"

namespace nabla::autograd {

namespace {
std::atomic<uint64_t> g_next_sequence_nr{0};
}

Node::Node() : sequence_nr(g_next_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {}

// Note [Iterative teardown]: a node owns its inputs' nodes (next_edges), so
// dropping the last handle to the result of a chain of a million ops used to
// free a million nodes recursively and overflow the stack. The outermost
// ~Node on a thread frees the chain from a loop instead; the nodes it frees
// hand their edges to that loop. Growing the loop's list can fail when
// memory is short (and this may run while an exception unwinds): then the
// edge stays and is released recursively, as before, one level deeper.
namespace {
using PendingNodes = SmallVector<std::shared_ptr<Node>, 16>;
thread_local PendingNodes* t_pending = nullptr;

void hand_over(SmallVector<Edge, 2>& edges, PendingNodes& pending) noexcept {
  for (Edge& e : edges) {
    if (!e.node) continue;
    try {
      pending.push_back(std::move(e.node));
    } catch (...) {
    }
  }
}
}  // namespace

Node::~Node() {
  if (t_pending) {
    hand_over(next_edges, *t_pending);
    return;
  }
  PendingNodes pending;
  t_pending = &pending;
  hand_over(next_edges, pending);
  while (!pending.empty()) {
    std::shared_ptr<Node> n = std::move(pending.back());
    pending.pop_back();
    n.reset();  // if it was the last handle, ~Node of n appends its edges
  }
  t_pending = nullptr;
}

SavedTensor::SavedTensor(const Tensor& t, bool is_output, uint32_t version)
    : version_(version), is_output_(is_output) {
  if (is_output) {
    output_nr_ = t.output_nr();
    data_ = make_view(t, t.sizes(), t.strides(), t.storage_offset());
  } else {
    data_ = t;
  }
}

Tensor SavedTensor::unpack(const std::shared_ptr<Node>& owner, const char* op, int index) const {
  NABLA_CHECK(data_.defined(), op,
              ": trying to backward through the graph a second time (its saved tensors were freed); "
              "pass retain_graph=true to the first backward");
  NABLA_CHECK(data_.version() == version_, "backward of ", op, ": one of the tensors needed for the gradient (",
              is_output_ ? "output " : "input ", index, ", shape ", data_.sizes(),
              ") has been modified by an in-place operation: it is at version ", data_.version(),
              ", expected version ", version_);
  // Integer outputs (indices) carry no history; floating ones, under
  // create_graph, must be connected to the node that made them.
  if (!is_output_ || !GradMode::is_enabled() || !is_floating(data_.dtype())) return data_;
  Tensor alias = make_view(data_, data_.sizes(), data_.strides(), data_.storage_offset());
  auto meta = std::make_shared<AutogradMeta>();
  meta->requires_grad = true;
  meta->grad_fn = owner;
  meta->output_nr = output_nr_;
  alias.impl()->autograd = std::move(meta);
  return alias;
}

namespace {

class OpGradCtx final : public GradCtx {
 public:
  OpGradCtx(OpNode& node, TensorList& grads) : node_(node), grads_(grads) {}
  const Tensor& grad(int i) override {
    Tensor& g = grads_[static_cast<std::size_t>(i)];
    if (!g.defined()) {
      const OutputMeta& m = node_.output_meta[static_cast<std::size_t>(i)];
      g = zeros(m.sizes, TensorOptions().dtype(m.dtype).device(node_.input_device));
    }
    return g;
  }
  Tensor input(int i) override {
    return node_.saved_inputs[static_cast<std::size_t>(i)].unpack(self(), node_.op.name.data(), i);
  }
  Tensor output(int i) override {
    return node_.saved_outputs[static_cast<std::size_t>(i)].unpack(self(), node_.op.name.data(), i);
  }
  const Shape& input_sizes(int i) override { return node_.input_meta[static_cast<std::size_t>(i)].sizes; }
  DType input_dtype(int i) override { return node_.input_meta[static_cast<std::size_t>(i)].dtype; }
  bool needs_grad(int i) override { return node_.next_edges[static_cast<std::size_t>(i)].valid(); }
  int num_inputs() override { return static_cast<int>(node_.next_edges.size()); }
  const Attrs& attrs() override { return node_.attrs; }

 private:
  std::shared_ptr<Node> self() { return node_.shared_from_this(); }
  OpNode& node_;
  TensorList& grads_;
};

}  // namespace

TensorList OpNode::apply(TensorList& grads) {
  NABLA_CHECK(!released, op.name,
              ": trying to backward through the graph a second time (its saved tensors were freed); "
              "pass retain_graph=true to the first backward");
  NABLA_CHECK(op.grad, op.name, ": has no gradient rule");
  OpGradCtx ctx(*this, grads);
  return op.grad(ctx);
}

void OpNode::release_saved() {
  for (auto& s : saved_inputs) s.reset();
  for (auto& s : saved_outputs) s.reset();
  released = true;
}

namespace {
// Whether .grad can be the incoming gradient itself rather than a copy
// (PyTorch's AccumulateGrad steals it the same way): nothing else holds the
// tensor or its memory (`g` here is the only handle: the engine moved its
// buffer in), the memory is nabla's and exactly the tensor's (a view of a
// larger buffer would keep all of it alive), it carries no history and is not
// a graph value, and it is dense in its own memory format, the layout a clone
// would give it. A gradient one op hands to two leaves (add's) is held
// twice, so the first leaf copies it and the second takes it.
bool stealable(const Tensor& g) {
  const TensorImpl& t = *g.impl();
  if (t.use_count() != 1 || t.autograd || !t.storage || t.storage->use_count() != 1 || t.storage->is_borrowed())
    return false;
  if (t.offset != 0 || t.storage->nbytes() != static_cast<std::size_t>(g.numel()) * itemsize(g.dtype())) return false;
  return g.is_contiguous() || (g.dim() == 4 && is_contiguous(g, MemoryFormat::ChannelsLast));
}
}  // namespace

TensorList AccumulateGrad::apply(TensorList& grads) {
  std::shared_ptr<AutogradMeta> m = meta.lock();
  if (!m || !grads[0].defined()) return {};
  Tensor g = std::move(grads[0]);
  for (auto& hook : m->hooks) {
    Tensor r = hook(g);
    if (r.defined()) g = r;
  }
  if (!m->grad.defined()) {
    // Own the gradient: the same tensor may flow to several leaves. A copy
    // keeps g's memory format, which the layout pre-hook (gradient_edge)
    // made the leaf's.
    if (GradMode::is_enabled())
      m->grad = clone(g, MemoryFormat::Preserve);
    else
      m->grad = stealable(g) ? std::move(g) : clone(g.detach(), MemoryFormat::Preserve);
  } else if (GradMode::is_enabled()) {
    m->grad = m->grad + g;  // create_graph: keep the history
  } else {
    m->grad.add_(g);
  }
  // Post-accumulate hooks (autograd/hooks.h): the engine summed every use's
  // gradient in this node's buffer, so .grad is final for this backward.
  const Tensor grad = m->grad;
  for (auto& [slot, hook] : pre_hooks)
    if (slot == kPostAccumulateSlot) hook(grad);
  return {};
}

AutogradMeta& autograd_meta(const Tensor& t) {
  NABLA_CHECK(t.defined(), "autograd: an undefined tensor has no autograd state");
  auto& m = t.impl()->autograd;
  if (!m) m = std::make_shared<AutogradMeta>();
  return *m;
}

Edge gradient_edge(const Tensor& t) {
  if (!t.defined()) return {};  // no history: callers name what they were given
  auto& m = t.impl()->autograd;
  if (!m) return {};
  if (m->grad_fn) return {m->grad_fn, m->output_nr};
  if (!m->requires_grad) return {};
  if (!m->grad_accumulator) {
    auto acc = std::make_shared<AccumulateGrad>(m);
    // Runs as soon as its gradient is complete, not in creation order (the
    // accumulator of a parameter is made long before the forward's nodes):
    // a leaf has no inputs, so any time after its consumers is topological,
    // and its post-accumulate hooks then fire while backward goes on (what
    // DDP overlaps its all-reduce with). PyTorch does the same.
    acc->sequence_nr = UINT64_MAX;
    // PyTorch's layout contract: a 4-d leaf's .grad has the leaf's memory
    // format (a channels-last weight gets a channels-last gradient even from
    // conv2d's contiguous weight-gradient kernel, and the reverse).
    if (t.dim() == 4 && !t.is_symbolic() && t.device().is_cpu()) {
      const MemoryFormat format = suggest_memory_format(t);
      acc->pre_hooks.push_back({0, [format](const Tensor& g) {
                                  // (suggested formats: a broadcast gradient stays as it is for clone to copy)
                                  return g.dim() != 4 || suggest_memory_format(g) == format ? Tensor()
                                                                                             : contiguous(g, format);
                                }});
    }
    acc->input_meta.push_back({t.sizes(), t.dtype()});
    acc->output_meta.push_back({t.sizes(), t.dtype()});
    m->grad_accumulator = acc;
  }
  return {m->grad_accumulator, 0};
}

}  // namespace nabla::autograd

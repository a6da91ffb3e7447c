// Note [Backward order]: nodes run in decreasing sequence number among those
// whose every consumer has run. A node is created after the nodes of its
// inputs, so this is a topological order. Leaves' AccumulateGrad nodes have
// the largest number (node.cpp): they run as soon as they are ready. Gradients for one input are summed
// in its node's buffer before the node runs; gradients reaching an input of a
// different shape (broadcast) are summed back to its shape (sum_to).
#include "nabla/autograd/engine.h"

#include <functional>
#include <queue>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "nabla/autograd/hooks.h"
#include "nabla/autograd/node.h"
#include "nabla/core/grad_mode.h"
#include "nabla/core/trace_context.h"
#include "nabla/ops/ops.h"

namespace nabla {
namespace {

using autograd::Edge;
using autograd::Node;

// The root of a backward pass: passes the given gradients to the outputs.
class GraphRoot final : public Node {
 public:
  explicit GraphRoot(TensorList grads) : grads_(std::move(grads)) {}
  TensorList apply(TensorList&) override { return grads_; }
  std::string name() const override { return "GraphRoot"; }
 private:
  TensorList grads_;
};

// The callbacks queued (autograd::queue_callback) during the backward pass
// this thread is running; null outside one. A hook may run a backward of its
// own: that one gets its own list (CallbackScope saves and restores).
thread_local std::vector<std::function<void()>>* t_callbacks = nullptr;

class CallbackScope {
 public:
  CallbackScope() : outer_(std::exchange(t_callbacks, &mine_)) {}
  ~CallbackScope() { t_callbacks = outer_; }
  CallbackScope(const CallbackScope&) = delete;
  CallbackScope& operator=(const CallbackScope&) = delete;
  // After the graph: each callback, including those queued by callbacks.
  void run_queued() {
    for (std::size_t i = 0; i < mine_.size(); ++i) {
      std::function<void()> f = std::move(mine_[i]);
      f();
    }
    mine_.clear();
  }

 private:
  std::vector<std::function<void()>> mine_;
  std::vector<std::function<void()>>* outer_;
};

struct Capture {
  Node* node;
  uint32_t slot;
};

Tensor conform(Tensor g, const OutputMeta& meta, const std::string& producer) {
  if (g.sizes() != meta.sizes) {
    NABLA_CHECK(is_expandable_to(meta.sizes, g.sizes()), "backward: the gradient computed by ", producer,
                " has shape ", g.sizes(), ", which does not reduce to its input's shape ", meta.sizes);
    g = sum_to(g, meta.sizes);
  }
  if (g.dtype() != meta.dtype && is_floating(meta.dtype)) g = g.to(meta.dtype);
  return g;
}

// backward()/grad() of a graph value: it has no autograd history. Inside
// compile()'s trace (core/trace_context.h) backward() is traced (see
// backward() below); grad() is not.
void check_not_symbolic(const Tensor& t, const char* api, const char* what, std::size_t i) {
  if (!t.defined() || !t.is_symbolic()) return;
  if (const std::string* ctx = detail::trace_context())
    fail(*ctx, ": ", api, "() on a traced tensor (", what, " ", i, "); compile() traces backward() (gradients "
         "into .grad()) but not ", api, "(): call loss.backward() in the compiled function and read .grad()");
  fail(api, ": ", what, " ", i, " is a graph value (a symbolic tensor), which has no autograd history; "
       "use graph::gradients in a graph");
}

// Runs the graph from `outputs`. When `captures` is non-empty only the nodes
// on a path to a captured slot run and the captured gradients are returned;
// otherwise every node runs and leaves accumulate into .grad().
TensorList run(const TensorList& outputs, const TensorList& grad_outputs, bool keep_graph, bool create_graph,
               const std::vector<Capture>& captures, const char* api) {
  NABLA_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(), api, ": got ", outputs.size(),
              " outputs but ", grad_outputs.size(), " gradients");
  TensorList root_grads;
  SmallVector<Edge, 2> root_edges;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    NABLA_CHECK(outputs[i].defined(), api, ": output ", i, " is an undefined tensor (a default-constructed Tensor)");
    check_not_symbolic(outputs[i], api, "output", i);
    if (i < grad_outputs.size()) check_not_symbolic(grad_outputs[i], api, "gradient", i);
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    Edge e = autograd::gradient_edge(out);
    NABLA_CHECK(e.valid(), api, ": output ", i, " does not require grad and has no grad_fn");
    Tensor g = grad_outputs.empty() ? Tensor() : grad_outputs[i];
    if (!g.defined()) {
      NABLA_CHECK(out.numel() == 1, api, ": a gradient can be implicitly created only for scalar outputs; output ", i,
                  " has shape ", out.sizes(), ", so pass a gradient of that shape");
      g = ones_like(out);
    } else {
      NABLA_CHECK(g.sizes() == out.sizes(), api, ": gradient ", i, " has shape ", g.sizes(),
                  " but the output has shape ", out.sizes());
    }
    root_edges.push_back(e);
    root_grads.push_back(g);
  }
  auto root = std::make_shared<GraphRoot>(root_grads);
  root->next_edges = root_edges;
  for (const Tensor& out : outputs) root->input_meta.push_back({out.sizes(), out.dtype()});

  // Count dependencies and find which nodes lead to a capture.
  std::unordered_map<Node*, int> deps;
  std::unordered_map<Node*, bool> leads;  // runs: some capture lies beyond it
  std::unordered_set<Node*> capture_nodes;
  for (const Capture& c : captures) capture_nodes.insert(c.node);
  std::vector<Node*> order;  // DFS post-order
  {
    std::unordered_set<Node*> seen{root.get()};
    std::vector<std::pair<Node*, std::size_t>> stack{{root.get(), 0}};
    while (!stack.empty()) {
      auto& [n, i] = stack.back();
      if (i < n->next_edges.size()) {
        Node* child = n->next_edges[i++].node.get();
        if (!child) continue;
        deps[child]++;
        if (seen.insert(child).second) stack.push_back({child, 0});
      } else {
        order.push_back(n);
        stack.pop_back();
      }
    }
  }
  bool capturing = !captures.empty();
  if (capturing) {
    for (Node* n : order) {  // children come before parents in post-order
      bool l = false;
      for (const Edge& e : n->next_edges)
        if (e.node && (capture_nodes.count(e.node.get()) || leads[e.node.get()])) l = true;
      leads[n] = l;
    }
  }

  CallbackScope callbacks;
  TensorList results(captures.size());
  std::unordered_map<Node*, TensorList> buffers;
  auto cmp = [](const std::shared_ptr<Node>& a, const std::shared_ptr<Node>& b) {
    return a->sequence_nr < b->sequence_nr;
  };
  std::priority_queue<std::shared_ptr<Node>, std::vector<std::shared_ptr<Node>>, decltype(cmp)> ready(cmp);
  AutoGradMode grad_mode(create_graph);
  ready.push(root);
  bool root_done = false;
  while (!ready.empty()) {
    std::shared_ptr<Node> node = ready.top();
    ready.pop();
    TensorList grads = std::move(buffers[node.get()]);
    buffers.erase(node.get());
    grads.resize(std::max<std::size_t>(grads.size(), node->output_meta.size()));
    for (auto& [slot, hook] : node->pre_hooks) {
      if (slot < grads.size() && grads[slot].defined()) {
        Tensor r = hook(grads[slot]);
        if (r.defined()) grads[slot] = r;
      }
    }
    if (capturing) {
      for (std::size_t c = 0; c < captures.size(); ++c)
        if (captures[c].node == node.get() && captures[c].slot < grads.size()) results[c] = grads[captures[c].slot];
      if (root_done && !leads[node.get()]) continue;
    }
    root_done = true;
    TensorList in_grads = node->apply(grads);
    if (!keep_graph) node->release_saved();
    for (std::size_t i = 0; i < node->next_edges.size(); ++i) {
      const Edge& e = node->next_edges[i];
      if (!e.node) continue;
      if (i < in_grads.size() && in_grads[i].defined()) {
        Tensor g = conform(in_grads[i], node->input_meta[i], node->name());
        TensorList& buf = buffers[e.node.get()];
        if (buf.size() <= e.input_nr) buf.resize(e.input_nr + 1);
        buf[e.input_nr] = buf[e.input_nr].defined() ? buf[e.input_nr] + g : g;
      }
      if (--deps[e.node.get()] == 0) ready.push(e.node);
    }
  }
  callbacks.run_queued();
  return results;
}

}  // namespace

namespace autograd {

void register_post_accumulate_grad_hook(const Tensor& leaf, PostAccumulateGradHook hook) {
  NABLA_CHECK(leaf.defined(), "register_post_accumulate_grad_hook: the tensor is undefined (a default-constructed "
              "Tensor)");
  NABLA_CHECK(leaf.requires_grad(), "register_post_accumulate_grad_hook: cannot register a hook on a tensor that "
              "doesn't require grad");
  NABLA_CHECK(leaf.is_leaf(), "register_post_accumulate_grad_hook: post accumulate grad hooks can only be "
              "registered on leaf tensors; this one was made by ", leaf.grad_fn()->name());
  NABLA_CHECK(hook != nullptr, "register_post_accumulate_grad_hook: the hook is empty");
  Edge e = gradient_edge(leaf);  // creates the leaf's AccumulateGrad node, which its autograd state keeps
  e.node->pre_hooks.push_back({kPostAccumulateSlot, [hook = std::move(hook)](const Tensor& grad) {
                                 hook(grad);
                                 return Tensor();
                               }});
}

void queue_callback(std::function<void()> callback) {
  NABLA_CHECK(t_callbacks != nullptr, "autograd::queue_callback: no backward pass is running in this thread; "
              "queue callbacks from a hook during backward()");
  NABLA_CHECK(callback != nullptr, "autograd::queue_callback: the callback is empty");
  t_callbacks->push_back(std::move(callback));
}

bool in_backward() { return t_callbacks != nullptr; }

}  // namespace autograd

TensorList grad(const TensorList& outputs, const TensorList& inputs, const TensorList& grad_outputs,
                std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  std::vector<Capture> captures;
  std::vector<std::shared_ptr<Node>> keep;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    NABLA_CHECK(inputs[i].defined(), "grad: input ", i, " is an undefined tensor (a default-constructed Tensor)");
    Edge e = autograd::gradient_edge(inputs[i]);
    NABLA_CHECK(e.valid(), "grad: input ", i, " does not require grad");
    keep.push_back(e.node);
    captures.push_back({e.node.get(), e.input_nr});
  }
  TensorList r = run(outputs, grad_outputs, retain_graph.value_or(create_graph), create_graph, captures, "grad");
  for (std::size_t i = 0; i < r.size(); ++i)
    NABLA_CHECK(r[i].defined() || allow_unused, "grad: input ", i,
                " was not used to compute the outputs; pass allow_unused=true to get an undefined gradient");
  return r;
}

void backward(const TensorList& outputs, const TensorList& grad_outputs, std::optional<bool> retain_graph,
              bool create_graph) {
  // Inside compile()'s trace, a traced loss's backward becomes gradient
  // nodes of the traced graph (graph::gradients), written to .grad().
  if (detail::Tracer* tracer = detail::current_tracer()) {
    bool symbolic = false;
    for (const Tensor& t : outputs) symbolic |= t.defined() && t.is_symbolic();
    if (symbolic) {
      NABLA_CHECK(!create_graph, tracer->where(), ": backward(create_graph=true) is not traced; higher-order "
                  "gradients in a compiled function are not supported");
      tracer->backward(outputs, grad_outputs);
      return;
    }
  }
  run(outputs, grad_outputs, retain_graph.value_or(create_graph), create_graph, {}, "backward");
}

}  // namespace nabla

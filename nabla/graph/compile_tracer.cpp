// compile()'s Tracer: parameters become bound variables, backward() becomes
// graph::gradients, optimizer steps become Effect nodes (compile_tracer.h).
#include "nabla/graph/compile_tracer.h"

#include "nabla/graph/control_flow_detail.h"
#include "nabla/graph/gradients.h"
#include "nabla/graph/graph.h"
#include "nabla/ops/ops.h"

namespace nabla::graph::detail {

CompileTracer::CompileTracer(std::string where, std::shared_ptr<GraphData> graph, std::source_location loc)
    : where_(std::move(where)), graph_(std::move(graph)), loc_(loc) {}

CompileTracer::~CompileTracer() {
  for (Tensor& p : traced_grads_)
    if (p.grad().defined() && p.grad().is_symbolic()) p.set_grad(Tensor());
}

ValueRef CompileTracer::bind(const Tensor& t) {
  auto it = bound_.find(t.impl());
  if (it != bound_.end()) return {it->second, 0};
  Node n;
  n.kind = NodeKind::Variable;
  n.metas.push_back({t.sizes(), t.dtype()});
  n.value = t;  // the tensor itself (not a copy, not a detached alias): see Node::bound
  n.bound = true;
  n.trainable = t.requires_grad();
  n.loc = loc_;
  const int id = value_of(add_node(graph_, std::move(n), "parameter")[0])->ref.node;
  bound_.emplace(t.impl(), id);
  bound_tensors_.push_back(t);
  bound_nodes_.push_back(id);
  return {id, 0};
}

bool CompileTracer::used_parameters() const {
  for (const Tensor& t : bound_tensors_)
    if (t.requires_grad()) return true;
  return false;
}

// A value of the trace's top-level graph for input i of `api`: a traced value
// (made there, not inside a cond branch or loop body), a bound parameter, or
// a constant.
ValueRef CompileTracer::ref_of(const Tensor& t, const char* api, std::size_t i) {
  NABLA_CHECK(t.defined(), where_, ": ", api, ": input ", i, " is an undefined tensor");
  if (Value* v = value_of(t)) {
    NABLA_CHECK(v->graph == graph_, where_, ": ", api, ": input ", i, " is ",
                root_of(v->graph) == graph_ ? "a value made inside a cond branch or while_loop body"
                                            : "a value of another graph than the traced one",
                "; use the values the traced function computes at its top level");
    NABLA_CHECK(v->has_value, where_, ": ", api, ": input ", i, " has no value (a group or initializer)");
    return v->ref;
  }
  if (t.requires_grad() || ::nabla::detail::is_state(t)) return bind(t);
  Node c;
  c.kind = NodeKind::Constant;
  c.metas.push_back({t.sizes(), t.dtype()});
  c.value = t.detach();
  c.loc = loc_;
  return value_of(add_node(graph_, std::move(c), "const")[0])->ref;
}

void CompileTracer::backward(const TensorList& outputs, const TensorList& grad_outputs) {
  std::vector<Tensor> ys, grad_ys;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& y = outputs[i];
    ref_of(y, "backward", i);  // checks it is a value of the traced graph
    NABLA_CHECK(y.is_symbolic(), where_, ": backward(): output ", i, " does not depend on the traced function's "
                "inputs or parameters");
    if (i >= grad_outputs.size() || !grad_outputs[i].defined())
      NABLA_CHECK(y.numel() == 1, where_, ": backward(): a gradient can be implicitly created only for scalar "
                  "outputs; output ", i, " has shape ", y.sizes(), ", so pass a gradient of that shape");
    ys.push_back(y);
    grad_ys.push_back(i < grad_outputs.size() ? grad_outputs[i] : Tensor());
  }
  // Gradients reach the leaves that require grad, as eager backward's do.
  std::vector<Tensor> xs, params;
  for (std::size_t k = 0; k < bound_tensors_.size(); ++k) {
    const Tensor& p = bound_tensors_[k];
    if (!p.requires_grad() || !p.is_leaf()) continue;
    xs.push_back(value_tensor(graph_, {bound_nodes_[k], 0}));
    params.push_back(p);
  }
  std::vector<Tensor> grads = xs.empty() ? std::vector<Tensor>{} : gradients(ys, xs, grad_ys, loc_);
  bool reached = false;
  for (std::size_t k = 0; k < grads.size(); ++k) {
    if (!grads[k].defined()) continue;
    reached = true;
    Tensor& p = params[k];
    Tensor g = grads[k];
    if (Tensor old = p.grad(); old.defined()) {
      // .grad() accumulates: a second backward() in the same trace adds to
      // the first; a gradient from outside the trace cannot be added to at
      // every run.
      NABLA_CHECK(old.is_symbolic(), where_, ": backward(): a parameter of shape ", p.sizes(),
                  " already has a gradient from before the compiled function ran; eager backward() would add to "
                  "it, which a compiled step cannot do at each run: call optimizer.zero_grad() (or "
                  "module.zero_grad()) in the compiled function before backward()");
      g = old + g;
    }
    p.set_grad(g);
    traced_grads_.push_back(p);
  }
  NABLA_CHECK(reached, where_, ": backward(): the output does not depend on any tensor that requires grad (no "
              "module parameter reaches it), so no gradient would be computed");
  traced_backward_ = true;
  unzeroed_backward_ |= zero_grads_ == 0;
}

void CompileTracer::finish() const {
  if (!unzeroed_backward_) return;
  for (const Tensor& p : traced_grads_)
    NABLA_CHECK(!(p.grad().defined() && p.grad().is_symbolic()), where_,
                ": the function calls backward() but never zero_grad(), so called eagerly it would add each call's "
                "gradients to the last ones in .grad(); a compiled step computes each call's gradients afresh. "
                "Call optimizer.zero_grad() (or module.zero_grad()) in the function, before backward() or after "
                "the optimizer step");
}

void CompileTracer::effect(const std::string& what, const std::vector<Tensor>& inputs,
                           const std::vector<Tensor>& mutated, std::function<void(const std::vector<Tensor>&)> run,
                           ::nabla::detail::EffectReplay replay) {
  Node n;
  n.kind = NodeKind::Effect;
  n.effect = std::move(run);
  n.effect_replay = std::move(replay);
  n.loc = loc_;
  for (std::size_t i = 0; i < inputs.size(); ++i) n.inputs.push_back(ref_of(inputs[i], what.c_str(), i));
  // Reads of these variables made so far run before the effect (passes keep
  // reads on the same side of a state change); later ones after it.
  for (const Tensor& m : mutated) {
    if (m.requires_grad()) updates_parameters_ = true;
    if (auto it = bound_.find(m.impl()); it != bound_.end())
      n.mutates.push_back(it->second);
    else if (m.requires_grad() || ::nabla::detail::is_state(m))
      n.mutates.push_back(bind(m).node);  // first met here (not among the inputs)
  }
  effects_.push_back(add_node(graph_, std::move(n), what)[0]);
}

}  // namespace nabla::graph::detail

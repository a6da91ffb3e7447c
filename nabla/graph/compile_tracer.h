// The Tracer (core/trace_context.h) that compile() installs while it traces
// a function into a graph. It turns what the function does to tensors it
// closes over into graph nodes:
// - a tensor that requires grad (a module's parameter) or a module's buffer
//   (core/trace_context.h, register_state) becomes a *bound* Variable: the
//   Session reads and updates that very tensor, so the compiled function sees
//   eager changes and eager code sees its updates;
// - loss.backward() becomes graph::gradients of the loss with respect to the
//   bound variables, set as the parameters' .grad() while the trace runs;
// - optimizer.step() and in-place updates of parameters and buffers (batch
//   norm's running statistics) become Effect nodes that run the eager update
//   on the run-time values.
// Not for users: see graph/compile.h.
#pragma once
#include <memory>
#include <source_location>
#include <string>
#include <unordered_map>
#include <vector>

#include "nabla/core/trace_context.h"
#include "nabla/graph/node.h"

namespace nabla::graph::detail {

class CompileTracer : public ::nabla::detail::Tracer {
 public:
  CompileTracer(std::string where, std::shared_ptr<GraphData> graph, std::source_location loc);
  // Drops the traced gradients it set (they refer to the trace's graph).
  ~CompileTracer() override;
  CompileTracer(const CompileTracer&) = delete;
  CompileTracer& operator=(const CompileTracer&) = delete;

  const std::string& where() const override { return where_; }
  void backward(const TensorList& outputs, const TensorList& grad_outputs) override;
  void zero_grad() override { ++zero_grads_; }
  void effect(const std::string& what, const std::vector<Tensor>& inputs, const std::vector<Tensor>& mutated,
              std::function<void(const std::vector<Tensor>&)> run, ::nabla::detail::EffectReplay replay) override;

  // After the traced function returned: raises an Error when it left
  // gradients that eager calls would accumulate from call to call (backward()
  // without a zero_grad() before it or after the step).
  void finish() const;

  // The bound variable for `t` (made on first use), a value of the root graph.
  ValueRef bind(const Tensor& t);
  const std::shared_ptr<GraphData>& graph() const { return graph_; }
  // The Effect nodes made so far, as no-value tensors to fetch.
  const std::vector<Tensor>& effects() const { return effects_; }
  // A tensor that requires grad was bound (buffers do not count).
  bool used_parameters() const;
  bool traced_backward() const { return traced_backward_; }
  // An effect changes a parameter (an optimizer step, `w.sub_(...)`), not
  // only buffers (batch norm's running statistics).
  bool updates_parameters() const { return updates_parameters_; }

 private:
  ValueRef ref_of(const Tensor& t, const char* api, std::size_t i);

  std::string where_;
  std::shared_ptr<GraphData> graph_;
  std::source_location loc_;
  // Bound variables by the tensor they are bound to, in the order made.
  std::unordered_map<const TensorImpl*, int> bound_;
  std::vector<Tensor> bound_tensors_;
  std::vector<int> bound_nodes_;
  std::vector<Tensor> traced_grads_;  // parameters whose .grad() backward() set
  std::vector<Tensor> effects_;
  bool traced_backward_ = false;
  bool updates_parameters_ = false;
  int zero_grads_ = 0;             // zero_grad() calls so far
  bool unzeroed_backward_ = false;  // a backward() ran before any zero_grad()
};

// While it lives, ops whose inputs are concrete but one requires grad (which
// dispatch sends to the symbolic hook during a trace) add their nodes to the
// tracer's graph, with those inputs bound (symbolic_hook.cpp).
class LiftParametersScope {
 public:
  explicit LiftParametersScope(CompileTracer& tracer);
  ~LiftParametersScope();
  LiftParametersScope(const LiftParametersScope&) = delete;
  LiftParametersScope& operator=(const LiftParametersScope&) = delete;

 private:
  CompileTracer* prev_;
};

}  // namespace nabla::graph::detail

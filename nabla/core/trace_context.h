// What is tracing symbolic tensors on this thread, for the layers below the
// graph. nabla::compile (graph/compile.h) traces a function by running it on
// graph values. core/, autograd/ and optim/ cannot depend on graph/, so
// compile() installs a Tracer here and they consult it:
// - error messages: when the function reads a value's data (item(), an `if`
//   on a tensor) or updates a concrete tensor in place from a graph value,
//   the error says it happened inside compile() and what to do instead;
// - training steps: backward() of a traced loss and optimizer.step() with
//   traced gradients hand their work to the Tracer, which adds graph nodes.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "nabla/core/tensor.h"

namespace nabla::detail {

// How a CUDA graph replays an effect without calling it (graph::Session with
// SessionOptions::cuda_graphs; docs/devices.md, "CUDA graphs"): the effect's
// device work was captured into the graph with the host values it read then
// baked into its kernels' arguments. Without `key` the effect is host code a
// graph cannot stand for, and plans with it are not captured.
struct EffectReplay {
  // The host values the device work depends on (hyper-parameters, which
  // state buffers exist and where): a replay is valid while key() gives the
  // text it gave when the graph was captured; else the graph is captured anew.
  std::function<std::string()> key;
  // The effect's host bookkeeping (an optimizer's step counts), done at each
  // replay in place of the call. May be empty.
  std::function<void()> replayed;
  // Reverses the bookkeeping of a call whose captured device work was thrown
  // away (the capture failed, so the step is run again normally). May be empty.
  std::function<void()> undo;
};

class Tracer {
 public:
  virtual ~Tracer() = default;
  // "compile (compiled at file:line)", for error messages.
  virtual const std::string& where() const = 0;
  // backward(outputs, grad_outputs) of traced outputs: sets .grad() of every
  // leaf that requires grad and the outputs depend on to a traced gradient
  // (added to a traced .grad() already there).
  virtual void backward(const TensorList& outputs, const TensorList& grad_outputs) = 0;
  // A module's or optimizer's zero_grad() ran (so gradients of this call
  // do not add to an earlier call's, which the trace must check).
  virtual void zero_grad() = 0;
  // Each time the traced function runs, after the values `inputs` are
  // computed and every op traced so far that reads one of `mutated` has run,
  // call `run` with the concrete values of `inputs`; `run` may change the
  // tensors of `mutated` in place (an optimizer step). `what` names it;
  // `replay` says how a CUDA graph may replay it (EffectReplay).
  virtual void effect(const std::string& what, const std::vector<Tensor>& inputs,
                      const std::vector<Tensor>& mutated, std::function<void(const std::vector<Tensor>&)> run,
                      EffectReplay replay) = 0;
};

// State tensors: module buffers (nn::Module::register_buffer, such as batch
// norm's running statistics), which persist across calls. While compile()
// traces, ops reading them and in-place updates of them become graph nodes on
// a variable bound to the tensor, as a parameter's do, instead of running
// once at trace time. The registry keeps each tensor alive while it is
// registered and forgets it once nothing else holds it.
void register_state(const Tensor& t);
bool is_state(const Tensor& t);

// The Tracer of the compile() trace running on this thread, else nullptr.
Tracer* current_tracer();
// Its where() while a trace runs, else nullptr.
const std::string* trace_context();

// Installs `tracer` for its lifetime (nests: restores the previous one).
class TraceContextScope {
 public:
  explicit TraceContextScope(Tracer& tracer);
  ~TraceContextScope();
  TraceContextScope(const TraceContextScope&) = delete;
  TraceContextScope& operator=(const TraceContextScope&) = delete;

 private:
  Tracer* prev_;
};

}  // namespace nabla::detail

// TrainStep: the training step of Trainer::fit() on one batch (forward, loss,
// zero_grad, backward, optimizer step), eager or compiled with nabla::compile
// (FitOptions::jit). It returns the loss and the model's outputs, for the
// metrics.
//
// Compiled: the step is traced at its first batch and runs as one graph
// (graph::Session) afterwards. Parameters and buffers (batch norm's running
// statistics) are the model's own tensors, updated in place, and the
// optimizer's update runs with its current hyper-parameters, so callbacks
// that change the learning rate between batches take effect, and eager and
// compiled steps can alternate. A batch of another shape (an epoch's last,
// smaller batch) is traced once more and cached; past kMaxTraces shapes,
// further ones run eagerly. A change of what the trace fixed (a module's
// train/eval mode, a parameter's requires_grad: freezing) traces the step
// afresh. With a gradient sync (a data-parallel fit()) the compiled graph is
// forward, loss, zero_grad and backward only, returning the gradients: they
// are written to the parameters' .grad(), the sync (DDP's all-reduce, not a
// graph op) runs eagerly, then the optimizer step eagerly
// (docs/distributed.md, "compile()"). When the step cannot be traced (it reads tensor
// data, a layer refuses compile(), ...): Jit::Auto trains eagerly and says
// why once (verbose > 0); Jit::On raises nabla::Error with the reason.
// docs/train_api.md, "jit".
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "nabla/graph/compile.h"
#include "nabla/nn/module.h"
#include "nabla/optim/optimizer.h"
#include "nabla/train/trainer.h"

namespace nabla::train {

// LossFn and Jit (Auto: compiled when the step can be traced, else eager;
// On: compiled or an Error; Off: eager) are declared in trainer.h.

struct StepResult {
  Tensor loss;    // a single number
  Tensor output;  // the model's output, without autograd history
};

class TrainStep {
 public:
  // Traced shapes kept per step; further ones run eagerly.
  static constexpr int64_t kMaxTraces = 4;
  // `api` names the caller in errors ("Trainer::fit"); with `verbose` > 0
  // Auto's fallback to eager is printed (once).
  TrainStep(nn::Module& model, optim::Optimizer& optimizer, LossFn loss, Jit jit, int verbose = 0,
            const char* api = "Trainer::fit");

  // One step on the batch (x, y), which is on the model's device.
  StepResult operator()(const Tensor& x, const Tensor& y);

  // Called after backward and before the optimizer step (a data-parallel
  // fit(): gradients averaged over ranks). Compiled (Jit::On / Auto), the
  // graph then stops after backward (see above).
  void set_gradient_sync(DataParallel* parallel);

  // CUDA graphs for the compiled step on a CUDA device (graph/cuda_graphs.h;
  // compile()'s CompileConfig): once warmed up, each step is one graph
  // launch. The optimizer's update must be replayable (SGD's is; Adam's
  // reads its step count on the host); else Auto runs the compiled step
  // normally and cuda_graph_status says why. Traces the step afresh.
  void set_cuda_graphs(graph::CudaGraphs mode);
  std::string cuda_graph_status(const Tensor& x, const Tensor& y) const;

  // The step runs compiled (Auto: until the first batch it could not trace).
  bool compiled() const { return compiled_.has_value(); }
  // Why Auto runs eagerly ("" while compiled, and under Off).
  const std::string& fallback_reason() const { return reason_; }
  // Shapes traced so far and compiled / eager steps run.
  int64_t num_traces() const { return compiled_ ? compiled_->num_traces() : traces_before_fallback_; }
  int64_t compiled_steps() const { return compiled_steps_; }
  int64_t eager_steps() const { return eager_steps_; }

 private:
  StepResult eager(const Tensor& x, const Tensor& y);
  Tensor checked_loss(const Tensor& output, const Tensor& y) const;
  StepResult compiled_call(const Tensor& x, const Tensor& y);
  std::vector<bool> fixed_by_trace() const;
  void make_compiled();

  nn::Module& model_;
  optim::Optimizer& optimizer_;
  LossFn loss_;
  Jit jit_;
  int verbose_;
  const char* api_;
  DataParallel* parallel_ = nullptr;
  std::optional<CompiledFunction> compiled_;
  graph::CudaGraphs cuda_graphs_ = graph::CudaGraphs::Off;
  // With a gradient sync: the parameters whose gradients the compiled graph
  // returns after the loss and the output, in that order (set while tracing).
  std::vector<Tensor> grad_params_;
  std::vector<bool> traced_with_;  // fixed_by_trace() when compiled_ was made
  std::set<std::string> shapes_;   // the batches' shapes compiled_ traced
  std::string reason_;
  int64_t traces_before_fallback_ = 0, compiled_steps_ = 0, eager_steps_ = 0;
};

}  // namespace nabla::train

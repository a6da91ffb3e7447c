// See train_step.h.
#include "nabla/train/train_step.h"

#include <iostream>
#include <sstream>

#include "nabla/core/error.h"
#include "nabla/core/memory_format.h"

namespace nabla::train {
namespace {

// The shapes, dtypes and device of a batch: one trace each.
std::string shape_key(const Tensor& x, const Tensor& y) {
  std::ostringstream os;
  using ::nabla::detail::operator<<;
  os << x.dtype() << x.sizes() << y.dtype() << y.sizes() << x.device();
  return os.str();
}

}  // namespace

TrainStep::TrainStep(nn::Module& model, optim::Optimizer& optimizer, LossFn loss, Jit jit, int verbose, const char* api)
    : model_(model), optimizer_(optimizer), loss_(std::move(loss)), jit_(jit), verbose_(verbose), api_(api) {
  NABLA_CHECK(static_cast<bool>(loss_), api_, ": the loss function is empty");
  if (jit_ != Jit::Off) make_compiled();
}

Tensor TrainStep::checked_loss(const Tensor& output, const Tensor& y) const {
  Tensor loss = loss_(output, y);
  NABLA_CHECK(loss.defined(), api_, ": the loss function returned an undefined tensor");
  NABLA_CHECK(loss.numel() == 1, api_, ": the loss must be a single number, got shape ", loss.sizes());
  return loss;
}

void TrainStep::set_cuda_graphs(graph::CudaGraphs mode) {
  cuda_graphs_ = mode;
  if (compiled_) make_compiled();
}

std::string TrainStep::cuda_graph_status(const Tensor& x, const Tensor& y) const {
  if (!compiled_) return "off";
  return compiled_->cuda_graph_status({x, y});
}

StepResult TrainStep::eager(const Tensor& x, const Tensor& y) {
  Tensor output = model_(x);
  Tensor loss = checked_loss(output, y);
  optimizer_.zero_grad();
  loss.backward();
  if (parallel_ != nullptr) parallel_->sync_gradients();
  optimizer_.step();
  ++eager_steps_;
  return {loss.detach(), output.detach()};
}

// What a trace bakes in besides the batch's shapes: every module's mode
// (dropout and batch norm behave differently in training) and which
// parameters are trained.
std::vector<bool> TrainStep::fixed_by_trace() const {
  std::vector<bool> fixed{model_.is_training()};
  for (const auto& [name, m] : model_.named_modules()) fixed.push_back(m->is_training());
  for (const Tensor& p : model_.parameters()) fixed.push_back(p.requires_grad());
  return fixed;
}

void TrainStep::set_gradient_sync(DataParallel* parallel) {
  parallel_ = parallel;
  if (compiled_) make_compiled();  // the graph ends after backward now (or again runs the whole step)
}

void TrainStep::make_compiled() {
  grad_params_.clear();
  CompileConfig options;  // nabla's (compile.h), not train::CompileOptions
  options.cuda_graphs = cuda_graphs_;
  // A model made channels-last (nn::to) runs NHWC eagerly: so does its graph.
  for (const Tensor& p : model_.parameters())
    options.channels_last_convolutions |= p.dim() == 4 && suggest_memory_format(p) == MemoryFormat::ChannelsLast;
  if (parallel_ == nullptr) {
    // The same step as eager(), traced: zero_grad, backward and the optimizer
    // step become graph nodes (graph/compile.h, "Training steps").
    compiled_ = compile(
        [this](const std::vector<Tensor>& in) -> std::vector<Tensor> {
          Tensor output = model_(in[0]);
          Tensor loss = checked_loss(output, in[1]);
          optimizer_.zero_grad();
          loss.backward();
          optimizer_.step();
          return {loss, output};
        },
        options);
  } else {
    // The gradient sync is not a graph op (an all-reduce between processes):
    // the graph ends with backward and returns the gradients, which
    // compiled_call() writes to .grad() before the sync and the step.
    compiled_ = compile(
        [this](const std::vector<Tensor>& in) -> std::vector<Tensor> {
          Tensor output = model_(in[0]);
          Tensor loss = checked_loss(output, in[1]);
          optimizer_.zero_grad();
          loss.backward();
          std::vector<Tensor> out{loss, output};
          grad_params_.clear();
          for (const Tensor& p : model_.parameters())
            if (p.requires_grad() && p.grad().defined()) {  // unused parameters get none, as eagerly
              grad_params_.push_back(p);
              out.push_back(p.grad());
            }
          return out;
        },
        options);
  }
  traced_with_ = fixed_by_trace();
  shapes_.clear();
}

StepResult TrainStep::compiled_call(const Tensor& x, const Tensor& y) {
  std::vector<Tensor> r = (*compiled_)({x, y});
  if (parallel_ != nullptr) {
    NABLA_CHECK(r.size() == 2 + grad_params_.size(), api_, ": the compiled step returned ", r.size() - 2,
                " gradients for ", grad_params_.size(), " parameters");
    // eager()'s zero_grad() then backward(): .grad() is this batch's gradient,
    // none for a parameter it did not reach. Session results are fresh
    // tensors (graph/session.h), so .grad() may keep them.
    optimizer_.zero_grad();
    for (std::size_t k = 0; k < grad_params_.size(); ++k) Tensor(grad_params_[k]).set_grad(r[2 + k]);
    parallel_->sync_gradients();
    optimizer_.step();
  }
  ++compiled_steps_;
  return {r[0], r[1]};
}

StepResult TrainStep::operator()(const Tensor& x, const Tensor& y) {
  if (!compiled_) return eager(x, y);
  if (fixed_by_trace() != traced_with_) make_compiled();  // a mode or requires_grad changed: trace afresh
  const std::string key = shape_key(x, y);
  const bool known = shapes_.contains(key);
  if (!known && static_cast<int64_t>(shapes_.size()) >= kMaxTraces) return eager(x, y);
  if (known) return compiled_call(x, y);
  const int64_t traces = compiled_->num_traces();
  try {
    StepResult r = compiled_call(x, y);
    shapes_.insert(key);
    return r;
  } catch (const Error& e) {
    // Traced, then failed while running: an error of the step itself (as
    // eagerly), not of tracing it.
    if (compiled_->num_traces() > traces) throw;
    if (jit_ == Jit::On)
      fail(api_,
           ": jit = Jit::On, but the training step cannot be compiled (use Jit::Auto to train eagerly "
           "instead): ",
           e.what());
    reason_ = e.what();
    traces_before_fallback_ = traces;
    compiled_.reset();
    if (verbose_ > 0) std::cout << api_ << ": the training step runs eagerly (jit = auto): " << reason_ << std::endl;
  }
  return eager(x, y);
}

}  // namespace nabla::train

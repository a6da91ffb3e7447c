// nabla::compile(fn): eager code, static speed. The first call with a new
// input signature (count, dtypes, shapes) traces fn: it runs fn once on
// placeholders of a fresh graph::Graph, so every nabla op fn applies adds a
// node, and keeps a graph::Session for that signature; later calls with the
// same signature run the Session (optimized, fused, memory-planned) without
// calling fn. See docs/graph.md, "compile()".
#pragma once
#include <concepts>
#include <cstdint>
#include <functional>
#include <memory>
#include <source_location>
#include <string>
#include <type_traits>
#include <vector>

#include "nabla/core/tensor.h"
#include "nabla/graph/cuda_graphs.h"

namespace nabla {

using TensorsFn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;
using TensorFn = std::function<Tensor(const Tensor&)>;

// How compile() runs its traced graphs (graph::SessionOptions' fields of
// the same names).
struct CompileConfig {
  // CUDA graphs for traces that run on a CUDA device (graph/cuda_graphs.h):
  // a call's whole step replayed by one launch once warmed up.
  graph::CudaGraphs cuda_graphs = graph::CudaGraphs::Off;
  int cuda_graph_warmup = 2;
  // CPU plans: eval-mode batch norm folded into convolutions
  // (passes/fold_conv_bn.h; off: the unfolded values, bit for bit).
  bool fold_batch_norm = true;
  // CPU plans: convolution blocks run channels-last (passes/conv_layout.h).
  // A traced graph has no memory formats, so eager code's choice is carried
  // over: on when this is set or when an input of the call is a channels-last
  // 4-d tensor (train::TrainStep also when the model's convolution weights
  // are channels-last, nn::to(model, MemoryFormat::ChannelsLast)), as eager
  // mode would then run NHWC. Off, NCHW code runs NCHW, eager's values bit for bit.
  bool channels_last_convolutions = false;
};

// What compile() returns: a callable that caches one traced graph and
// Session per input signature. Copies share the cache.
class CompiledFunction {
 public:
  // Runs fn's traced graph for these inputs (tracing fn first if their
  // signature is new) and returns concrete tensors. Inputs that are graph
  // values (a compiled function called while tracing another, or while
  // building a graph) call fn directly: its ops join that graph.
  std::vector<Tensor> operator()(const std::vector<Tensor>& inputs) const;
  // One input, one output. A template so that `f({x})` (a braced list) picks
  // the vector form above and returns all outputs.
  template <class T>
    requires std::same_as<std::remove_cvref_t<T>, Tensor>
  Tensor operator()(T&& input) const {
    return call_one(input);
  }

  // Times fn was traced (one per signature met) and calls made.
  int64_t num_traces() const;
  int64_t num_calls() const;
  // The signatures traced so far ("float64[4, 3], int64[4]"), sorted.
  std::vector<std::string> signatures() const;
  // For the signature of `inputs`, which must have been traced: the traced
  // graph (graph::Graph::to_text) and the graph its Session runs after its
  // passes (Session::optimized_graph_text).
  std::string graph_text(const std::vector<Tensor>& inputs) const;
  std::string optimized_graph_text(const std::vector<Tensor>& inputs) const;
  // The execution plan a call with `inputs` runs (Session::plan_text): the
  // nodes left after pruning, fusion and the per-plan rewrites, in run order.
  std::string plan_text(const std::vector<Tensor>& inputs) const;
  // Profiling (graph::Session's): when on, calls time every node of the
  // graph they run, for every signature; profile_text() gives the table of
  // Session::profile_text for the signature of `inputs` (slowest node first).
  void set_profiling(bool on) const;
  std::string profile_text(const std::vector<Tensor>& inputs) const;
  // For the signature of `inputs`, which must have been traced: its
  // Session's Session::cuda_graph_status ("off", "warming up (1 of 2 runs)",
  // "captured (replayed 8 times; ...)", "not captured: <why>").
  std::string cuda_graph_status(const std::vector<Tensor>& inputs) const;
  // Counts over every traced signature's Session (Session::Stats).
  int64_t cuda_graph_captures() const;
  int64_t cuda_graph_replays() const;

 private:
  friend CompiledFunction compile(TensorsFn fn, CompileConfig options, std::source_location loc);
  Tensor call_one(const Tensor& input) const;
  struct State;
  std::shared_ptr<State> state_;
};

// `fn` is called only while tracing; it must compute its results with nabla
// ops from its inputs and the tensors it closes over. Tensors that require
// grad (module parameters) become graph variables bound to those tensors:
// runs read and update them in place, so eager and compiled code see each
// other's changes. Other closed-over tensors become constants that refer to
// them. Reading a traced tensor's data (item(), an `if` on a tensor) is an
// error: use graph::cond / graph::while_loop.
//
// Training steps are traced: `zero_grad(); loss.backward(); opt.step();`
// inside fn computes the parameters' gradients in the graph and runs the
// optimizer's own update rule on them at each call (its state, step counts
// and current hyper-parameters are the eager optimizer's), and so do in-place
// updates of parameters from traced values (`w.sub_(lr * w.grad())`). The
// parameters' .grad() is not written by compiled runs: gradients stay in the
// graph. Calls with grad mode on are refused when fn uses parameters without
// training them (no gradient would reach them). See docs/graph.md, compile().
CompiledFunction compile(TensorsFn fn, std::source_location loc = std::source_location::current());
CompiledFunction compile(TensorFn fn, std::source_location loc = std::source_location::current());
CompiledFunction compile(TensorsFn fn, CompileConfig options,
                         std::source_location loc = std::source_location::current());
CompiledFunction compile(TensorFn fn, CompileConfig options,
                         std::source_location loc = std::source_location::current());

}  // namespace nabla

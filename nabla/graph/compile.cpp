// compile(): traces fn once per input signature into a graph::Graph and runs
// the cached graph::Session for it afterwards. While fn is traced, a
// CompileTracer (compile_tracer.h) is installed: the layers below the graph
// say "compile" in their errors (reading a traced tensor's data), dispatch
// lifts ops on parameters into the graph as reads of bound variables, and
// backward() and optimizer steps become graph nodes.
#include "nabla/graph/compile.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <sstream>

#include "nabla/core/grad_mode.h"
#include "nabla/core/memory_format.h"
#include "nabla/core/trace_context.h"
#include "nabla/graph/compile_tracer.h"
#include "nabla/graph/control_flow_detail.h"
#include "nabla/graph/graph.h"
#include "nabla/graph/session.h"
#include "nabla/graph/trace.h"

namespace nabla {

namespace {

// One traced signature.
struct Trace {
  graph::Graph graph;
  std::vector<Tensor> placeholders;
  std::vector<Tensor> outputs;
  std::vector<Tensor> effects;  // optimizer steps and parameter updates, fetched with the outputs
  bool uses_requires_grad = false;  // fn read a tensor that requires grad (a parameter)
  bool trains = false;              // fn called backward() or updated parameters
  std::unique_ptr<graph::Session> session;
};

std::string signature_of(const std::vector<Tensor>& inputs) {
  std::ostringstream os;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    using ::nabla::detail::operator<<;
    os << (i ? ", " : "") << inputs[i].dtype() << inputs[i].sizes();
    if (!inputs[i].device().is_cpu()) os << " on " << inputs[i].device();
  }
  return os.str();
}

// Where a trace runs: the device of its inputs, else of the parameters it
// binds (a model moved to a device called with host inputs: they are copied
// in), else the CPU.
Device device_of(const std::vector<Tensor>& inputs, const graph::Graph& g) {
  for (const Tensor& x : inputs)
    if (!x.device().is_cpu()) return x.device();
  for (const graph::Node& n : g.data()->nodes)
    if (n.kind == graph::NodeKind::Variable && n.bound && n.value.defined() && !n.value.device().is_cpu())
      return n.value.device();
  return kCPU;
}

// What a call with `inputs` feeds and fetches: its outputs, then its effects.
graph::Feeds feeds_of(const Trace& t, const std::vector<Tensor>& inputs) {
  graph::Feeds feeds;
  for (std::size_t i = 0; i < inputs.size(); ++i) feeds.emplace_back(t.placeholders[i], inputs[i]);
  return feeds;
}
std::vector<Tensor> fetches_of(const Trace& t) {
  std::vector<Tensor> fetches = t.outputs;
  fetches.insert(fetches.end(), t.effects.begin(), t.effects.end());
  return fetches;
}

}  // namespace

struct CompiledFunction::State {
  TensorsFn fn;
  std::source_location loc;
  std::string where;  // "compile (compiled at file:line)"
  // One call at a time: traces, the Sessions' plans and the parameters they
  // update are shared by every thread calling this compiled function.
  // Recursive so that fn calling this function again while traced gets the
  // clear error below instead of a deadlock.
  mutable std::recursive_mutex mutex;
  bool tracing = false;
  std::map<std::string, Trace> traces;
  int64_t calls = 0;
  bool profiling = false;  // set_profiling: every trace's Session profiles its runs
  CompileConfig options;

  Trace trace(const std::vector<Tensor>& inputs, const std::string& sig) const;
  const Trace& traced(const std::vector<Tensor>& inputs, const char* api) const;
};

namespace {

// Runs fn on placeholders shaped like `inputs` of t.graph with a
// CompileTracer installed, and checks what it returned. `where` starts every
// error ("compile (compiled at file:line)").
void trace_into(Trace& t, const TensorsFn& fn, const std::vector<Tensor>& inputs, const std::string& where,
                std::source_location loc, const std::string& sig) {
  for (std::size_t i = 0; i < inputs.size(); ++i)
    t.placeholders.push_back(
        t.graph.placeholder(inputs[i].dtype(), inputs[i].sizes(), "input_" + std::to_string(i), loc));
  std::vector<Tensor> outs;
  try {
    graph::detail::CompileTracer tracer(where, t.graph.data(), loc);
    ::nabla::detail::TraceContextScope context(tracer);
    graph::detail::LiftParametersScope lift(tracer);
    graph::LocationScope at(loc);  // op nodes (and run-time errors in them) point at the compile() call
    outs = fn(t.placeholders);
    tracer.finish();
    t.uses_requires_grad = tracer.used_parameters();
    t.effects = tracer.effects();
    // Effects that only change buffers (batch norm's running statistics in a
    // forward in training mode) do not train anything.
    t.trains = tracer.traced_backward() || tracer.updates_parameters();
  } catch (const Error& e) {
    std::string msg = e.what();
    if (msg.rfind(where, 0) == 0) throw;  // already says it happened in compile()
    throw Error(msg + " (while " + where + " traced its function for inputs " + sig + ")");
  }
  NABLA_CHECK(!outs.empty(), where, ": the function returned no tensors; return at least one");
  for (std::size_t i = 0; i < outs.size(); ++i) {
    Tensor& o = outs[i];
    NABLA_CHECK(o.defined(), where, ": output ", i, " of the function is an undefined tensor");
    if (!o.is_symbolic()) {
      // A result that depends on no input: a constant referring to it, as a
      // closed-over tensor would be.
      o = t.graph.constant(o, "output_" + std::to_string(i), loc);
      continue;
    }
    graph::Value* v = graph::value_of(o);
    NABLA_CHECK(graph::detail::root_of(v->graph) == t.graph.data(), where, ": output ", i,
                " is a value of another graph than the one compile() traced (did the function build its own "
                "graph::Graph?)");
    NABLA_CHECK(v->graph == t.graph.data(), where, ": output ", i, " was made inside ", v->graph->region,
                "; return the values graph::cond / graph::while_loop return");
    NABLA_CHECK(v->has_value, where, ": output ", i, " has no value (a group or initializer); return tensors");
  }
  t.outputs = std::move(outs);
}

std::string where_of(const char* api, const char* verb, std::source_location loc) {
  std::string file = loc.file_name();
  file = file.substr(file.find_last_of('/') + 1);
  return ::nabla::detail::concat(api, " (", verb, " at ", file, ":", loc.line(), ")");
}

}  // namespace

Trace CompiledFunction::State::trace(const std::vector<Tensor>& inputs, const std::string& sig) const {
  Trace t;
  trace_into(t, fn, inputs, where, loc, sig);
  graph::SessionOptions options;
  options.fetches_to_host = false;  // results stay where the eager function would leave them
  options.cuda_graphs = this->options.cuda_graphs;
  options.cuda_graph_warmup = this->options.cuda_graph_warmup;
  options.fold_batch_norm = this->options.fold_batch_norm;
  options.channels_last_convolutions = this->options.channels_last_convolutions;
  for (const Tensor& x : inputs)
    options.channels_last_convolutions |= x.defined() && !x.is_symbolic() && x.dim() == 4 &&
                                          x.device().is_cpu() && suggest_memory_format(x) == MemoryFormat::ChannelsLast;
  t.session = std::make_unique<graph::Session>(t.graph, device_of(inputs, t.graph), options);
  t.session->set_profiling(profiling);
  return t;
}

const Trace& CompiledFunction::State::traced(const std::vector<Tensor>& inputs, const char* api) const {
  std::string sig = signature_of(inputs);
  auto it = traces.find(sig);
  NABLA_CHECK(it != traces.end(), "CompiledFunction::", api, ": ", where, " has not traced the signature (", sig,
              "); call the function with such inputs first (traced: ", traces.size(), " signatures)");
  return it->second;
}

std::vector<Tensor> CompiledFunction::operator()(const std::vector<Tensor>& inputs) const {
  State& s = *state_;
  bool symbolic = false;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    NABLA_CHECK(inputs[i].defined(), s.where, ": input ", i, " is an undefined tensor");
    symbolic |= inputs[i].is_symbolic();
  }
  // Called on graph values: fn's ops join the graph those values belong to.
  if (symbolic) return s.fn(inputs);
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  for (std::size_t i = 0; i < inputs.size(); ++i)
    NABLA_CHECK(!(GradMode::is_enabled() && inputs[i].requires_grad()), s.where, ": input ", i,
                " requires grad, but compiled functions do not record autograd history for their inputs (gradients "
                "reach the parameters they close over, through backward() inside the function); call it under "
                "NoGradGuard, or pass a detached tensor");
  ++s.calls;
  std::string sig = signature_of(inputs);
  auto it = s.traces.find(sig);
  NABLA_CHECK(!s.tracing, s.where, ": the function called itself with concrete tensors while it was being traced; "
              "a compiled function cannot run inside its own trace");
  if (it == s.traces.end()) {
    s.tracing = true;
    struct Reset {
      bool& flag;
      ~Reset() { flag = false; }
    } reset{s.tracing};
    it = s.traces.emplace(sig, s.trace(inputs, sig)).first;
  }
  Trace& t = it->second;
  NABLA_CHECK(!(GradMode::is_enabled() && t.uses_requires_grad && !t.trains), s.where,
              ": the function uses tensors that require grad (module parameters) but neither calls backward() nor "
              "updates them, and its results have no autograd history, so no gradient would reach them later; "
              "call it under NoGradGuard (inference), or put backward() and the optimizer step inside it");
  graph::Feeds feeds = feeds_of(t, inputs);
  if (t.effects.empty()) return t.session->run(t.outputs, feeds);
  std::vector<Tensor> results = t.session->run(fetches_of(t), feeds);
  results.resize(t.outputs.size());
  return results;
}

Tensor CompiledFunction::call_one(const Tensor& input) const {
  std::vector<Tensor> out = (*this)(std::vector<Tensor>{input});
  NABLA_CHECK(out.size() == 1, state_->where, ": called with one tensor, which returns one, but the function returned ",
              out.size(), "; call it with a std::vector<Tensor> to get them all");
  return out[0];
}

int64_t CompiledFunction::num_traces() const {
  std::lock_guard<std::recursive_mutex> lock(state_->mutex);
  return static_cast<int64_t>(state_->traces.size());
}
int64_t CompiledFunction::num_calls() const {
  std::lock_guard<std::recursive_mutex> lock(state_->mutex);
  return state_->calls;
}

std::vector<std::string> CompiledFunction::signatures() const {
  std::lock_guard<std::recursive_mutex> lock(state_->mutex);
  std::vector<std::string> r;
  for (const auto& [sig, t] : state_->traces) r.push_back(sig);
  return r;
}

std::string CompiledFunction::graph_text(const std::vector<Tensor>& inputs) const {
  std::lock_guard<std::recursive_mutex> lock(state_->mutex);
  return state_->traced(inputs, "graph_text").graph.to_text();
}

std::string CompiledFunction::optimized_graph_text(const std::vector<Tensor>& inputs) const {
  std::lock_guard<std::recursive_mutex> lock(state_->mutex);
  return state_->traced(inputs, "optimized_graph_text").session->optimized_graph_text();
}

std::string CompiledFunction::plan_text(const std::vector<Tensor>& inputs) const {
  std::lock_guard<std::recursive_mutex> lock(state_->mutex);
  const Trace& t = state_->traced(inputs, "plan_text");
  return t.session->plan_text(fetches_of(t), feeds_of(t, inputs));
}

void CompiledFunction::set_profiling(bool on) const {
  std::lock_guard<std::recursive_mutex> lock(state_->mutex);
  state_->profiling = on;
  for (auto& [sig, t] : state_->traces) t.session->set_profiling(on);
}

std::string CompiledFunction::profile_text(const std::vector<Tensor>& inputs) const {
  std::lock_guard<std::recursive_mutex> lock(state_->mutex);
  const Trace& t = state_->traced(inputs, "profile_text");
  return t.session->profile_text(fetches_of(t), feeds_of(t, inputs));
}

std::string CompiledFunction::cuda_graph_status(const std::vector<Tensor>& inputs) const {
  std::lock_guard<std::recursive_mutex> lock(state_->mutex);
  const Trace& t = state_->traced(inputs, "cuda_graph_status");
  return t.session->cuda_graph_status(fetches_of(t), feeds_of(t, inputs));
}

int64_t CompiledFunction::cuda_graph_captures() const {
  std::lock_guard<std::recursive_mutex> lock(state_->mutex);
  int64_t n = 0;
  for (const auto& [sig, t] : state_->traces) n += t.session->stats().cuda_graph_captures;
  return n;
}

int64_t CompiledFunction::cuda_graph_replays() const {
  std::lock_guard<std::recursive_mutex> lock(state_->mutex);
  int64_t n = 0;
  for (const auto& [sig, t] : state_->traces) n += t.session->stats().cuda_graph_replays;
  return n;
}

CompiledFunction compile(TensorsFn fn, std::source_location loc) { return compile(std::move(fn), CompileConfig{}, loc); }

CompiledFunction compile(TensorsFn fn, CompileConfig options, std::source_location loc) {
  NABLA_CHECK(fn, "compile: expected a function, got an empty std::function");
  CompiledFunction f;
  f.state_ = std::make_shared<CompiledFunction::State>();
  f.state_->fn = std::move(fn);
  f.state_->options = options;
  f.state_->loc = loc;
  f.state_->where = where_of("compile", "compiled", loc);
  return f;
}

CompiledFunction compile(TensorFn fn, std::source_location loc) { return compile(std::move(fn), CompileConfig{}, loc); }

CompiledFunction compile(TensorFn fn, CompileConfig options, std::source_location loc) {
  NABLA_CHECK(fn, "compile: expected a function, got an empty std::function");
  return compile(TensorsFn([fn = std::move(fn)](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
                   NABLA_CHECK(xs.size() == 1, "compile: a function of one tensor was called with ", xs.size());
                   return {fn(xs[0])};
                 }),
                 options, loc);
}

graph::TracedGraph graph::trace(const TensorsFn& fn, const std::vector<Tensor>& example_inputs,
                                std::source_location loc) {
  NABLA_CHECK(fn, "graph::trace: expected a function, got an empty std::function");
  for (std::size_t i = 0; i < example_inputs.size(); ++i) {
    NABLA_CHECK(example_inputs[i].defined(), "graph::trace: example input ", i, " is an undefined tensor");
    NABLA_CHECK(!example_inputs[i].is_symbolic(), "graph::trace: example input ", i,
                " is a graph value; pass concrete tensors of the shapes to trace with");
  }
  Trace t;
  trace_into(t, fn, example_inputs, where_of("graph::trace", "called", loc), loc, signature_of(example_inputs));
  return {std::move(t.graph), std::move(t.placeholders), std::move(t.outputs)};
}

}  // namespace nabla

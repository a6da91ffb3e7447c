// nabla::compile: traced once per input signature, then run from a cached
// Session; results equal eager, parameters are read at each run, data-
// dependent control flow and steps it cannot trace are refused with clear
// errors. Training steps: compile_training_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"
#include "tests/support/error_message.h"

namespace nabla {
namespace {

using nabla::testing::assert_close;

using nabla::testing::error_of;
using nabla::testing::expect_error;

double same_dtype_max_abs_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.sizes(), b.sizes());
  EXPECT_EQ(a.dtype(), b.dtype());
  auto x = a.to_vector<double>(), y = b.to_vector<double>();
  double m = 0;
  for (std::size_t i = 0; i < x.size(); ++i) m = std::max(m, std::abs(x[i] - y[i]));
  return m;
}

std::shared_ptr<nn::Sequential> make_mlp() {
  auto model = std::make_shared<nn::Sequential>(nn::Linear(6, 8), nn::Tanh(), nn::Linear(8, 8), nn::ReLU(),
                                                nn::Linear(8, 3));
  model->to(kFloat64);
  return model;
}

TEST(Compile, SequentialMlpForwardEqualsEager) {
  manual_seed(1);
  auto model = make_mlp();
  int traced = 0;
  auto f = compile([&](const Tensor& x) {
    ++traced;
    return model->forward(x);
  });
  NoGradGuard no_grad;
  for (int i = 0; i < 3; ++i) {
    Tensor x = randn({5, 6}, kFloat64);
    Tensor y = f(x);
    EXPECT_FALSE(y.is_symbolic());
    assert_close(y, model->forward(x), {.rtol = 0.0, .atol = 1e-13});
  }
  EXPECT_EQ(traced, 1);
  EXPECT_EQ(f.num_traces(), 1);
  EXPECT_EQ(f.num_calls(), 3);
  // The traced graph names the inputs and points at the compile() line.
  std::string text = f.graph_text({randn({5, 6}, kFloat64)});
  EXPECT_NE(text.find("input_0 = placeholder() : float64[5, 6]"), std::string::npos) << text;
  EXPECT_NE(text.find("tanh"), std::string::npos) << text;
  EXPECT_NE(text.find("compile_test.cpp"), std::string::npos) << text;
  EXPECT_FALSE(f.optimized_graph_text({randn({5, 6}, kFloat64)}).empty());
}

TEST(Compile, RetracesOncePerSignatureAndCacheHitsDoNotCallTheFunction) {
  int traced = 0;
  auto f = compile([&](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    ++traced;
    Tensor r = xs[0] * 2.0;
    for (std::size_t i = 1; i < xs.size(); ++i) r = r + xs[i];
    return {r};
  });
  Tensor a = randn({2, 3}, kFloat64), b = randn({2, 3}, kFloat64);
  assert_close(f({a})[0], a * 2.0, {.rtol = 0.0, .atol = 1e-15});
  assert_close(f({b})[0], b * 2.0, {.rtol = 0.0, .atol = 1e-15});  // cache hit: new values, fn not called
  EXPECT_EQ(traced, 1);
  f({randn({4, 3}, kFloat64)});  // new shape
  EXPECT_EQ(traced, 2);
  Tensor c = randn({2, 3}, kFloat32);
  assert_close(f({c})[0], c * 2.0, {.rtol = 0.0, .atol = 1e-6});  // new dtype
  EXPECT_EQ(traced, 3);
  assert_close(f({a, b})[0], a * 2.0 + b, {.rtol = 0.0, .atol = 1e-15});  // new count
  EXPECT_EQ(traced, 4);
  f({b, a});
  f({randn({2, 3}, kFloat64)});
  f({randn({4, 3}, kFloat64)});
  EXPECT_EQ(traced, 4);
  EXPECT_EQ(f.num_traces(), 4);
  EXPECT_EQ(f.num_calls(), 8);
  EXPECT_EQ(f.signatures(), (std::vector<std::string>{"float32[2, 3]", "float64[2, 3]", "float64[2, 3], float64[2, 3]",
                                                      "float64[4, 3]"}));
  // Copies share the cache.
  auto g = f;
  g({a});
  EXPECT_EQ(traced, 4);
  expect_error(error_of([&] { f.graph_text({randn({9}, kFloat64)}); }),
               {"CompiledFunction::graph_text", "has not traced the signature (float64[9])"});
}

TEST(Compile, InPlaceParameterChangesShowInLaterCalls) {
  manual_seed(2);
  auto model = make_mlp();
  auto f = compile([&](const Tensor& x) { return model->forward(x); });
  NoGradGuard no_grad;
  Tensor x = randn({4, 6}, kFloat64);
  Tensor before = f(x);
  for (Tensor& p : model->parameters()) p.mul_(1.5).add_(0.25);
  Tensor after = f(x);
  EXPECT_GT(same_dtype_max_abs_diff(after, before), 1e-3);
  assert_close(after, model->forward(x), {.rtol = 0.0, .atol = 1e-13});
  EXPECT_EQ(f.num_traces(), 1);
}

TEST(Compile, ValuesComputedFromParametersAloneAreRecomputedAtEachRun) {
  // exp(log_scale) involves no input: traced eagerly it would be frozen at
  // trace time. compile() puts it in the graph, reading log_scale through a
  // variable bound to it, so each run sees its current value.
  Tensor log_scale = zeros({3}, kFloat64).requires_grad_();
  auto f = compile([&](const Tensor& x) { return x * exp(log_scale); });
  NoGradGuard no_grad;
  Tensor x = randn({2, 3}, kFloat64);
  assert_close(f(x), x, {.rtol = 0.0, .atol = 1e-15});
  EXPECT_NE(f.optimized_graph_text({x}).find("exp = exp(parameter)"), std::string::npos) << f.optimized_graph_text({x});
  log_scale.add_(full({3}, 0.5, kFloat64));
  assert_close(f(x), x * std::exp(0.5), {.rtol = 0.0, .atol = 1e-14});
  EXPECT_EQ(f.num_traces(), 1);
}

TEST(Compile, DataDependentIfIsAnErrorNamingCompileAndCond) {
  int traced = 0;
  auto f = compile([&](const Tensor& x) {
    ++traced;
    if (x.sum().item<float>() > 0) return x * 2.0f;
    return exp(x);
  });
  const int line = __LINE__ - 5;
  std::string msg = error_of([&] { f(ones({3})); });
  expect_error(msg, {"compile (compiled at compile_test.cpp:", "reads the data of a traced tensor", "item()",
                     "graph::cond", "graph::while_loop"});
  EXPECT_NE(msg.find("compile_test.cpp:" + std::to_string(line)), std::string::npos) << msg;
  EXPECT_EQ(f.num_traces(), 0);  // nothing half-traced is kept: the next call fails the same way
  EXPECT_EQ(error_of([&] { f(ones({3})); }), msg);
  EXPECT_EQ(traced, 2);
  // Other reads of data fail the same way.
  auto g = compile([](const Tensor& x) { return x * static_cast<double>(x.data_ptr<double>()[0]); });
  expect_error(error_of([&] { g(ones({3}, kFloat64)); }), {"compile (compiled at", "graph::cond"});
  // Outside compile(), a symbolic tensor's data read keeps its graph message.
  graph::Graph gr;
  Tensor p = gr.placeholder(kFloat32, {3}, "p");
  expect_error(error_of([&] { p.sum().item<float>(); }), {"symbolic tensor (a graph value) has no data"});
}

TEST(Compile, TheSameFunctionWithCondPicksTheBranchAtRunTime) {
  int traced = 0;
  auto f = compile([&](const Tensor& x) {
    ++traced;
    return graph::cond(sum(x) > 0.0, [&] { return x * 2.0; }, [&] { return exp(x); });
  });
  Tensor pos = full({4}, 0.75, kFloat64), neg = full({4}, -0.5, kFloat64);
  assert_close(f(pos), pos * 2.0, {.rtol = 0.0, .atol = 1e-15});
  assert_close(f(neg), exp(neg), {.rtol = 0.0, .atol = 1e-15});
  Tensor mixed = tensor(std::vector<double>{3.0, -1.0, -1.5, 0.25}, {4});
  assert_close(f(mixed), mixed * 2.0, {.rtol = 0.0, .atol = 1e-15});
  EXPECT_EQ(traced, 1);
}

TEST(Compile, StepsItCannotTraceAreRefusedWithAClearError) {
  Tensor w = randn({3}, kFloat64).requires_grad_();
  // grad() and higher-order backward are not traced (backward() is: see
  // compile_training_test.cpp).
  auto with_grad = compile([&](const Tensor& x) { return grad({sum(x * w)}, {w})[0]; });
  expect_error(error_of([&] { with_grad(randn({3}, kFloat64)); }),
               {"compile (compiled at compile_test.cpp:", "grad() on a traced tensor", "loss.backward()"});
  auto double_backward = compile([&](const Tensor& x) {
    Tensor loss = sum(x * w);
    loss.backward(Tensor(), true, true);
    return loss;
  });
  expect_error(error_of([&] { double_backward(randn({3}, kFloat64)); }),
               {"compile (compiled at", "create_graph=true) is not traced"});
  EXPECT_FALSE(w.grad().defined());
  // An update of a concrete tensor from a traced value (an optimizer step).
  Tensor v = zeros({3}, kFloat64);
  auto with_update = compile([&](const Tensor& x) {
    v.sub_(x * 0.1);
    return x;
  });
  expect_error(error_of([&] { with_update(randn({3}, kFloat64)); }),
               {"compile (compiled at", "sub_ writes a traced value into a concrete tensor that neither requires "
                "grad nor is a module's buffer", "register the tensor as a buffer", "return the value"});
  // An in-place update of a parameter from concrete values would run only
  // while tracing.
  auto decay = compile([&](const Tensor& x) {
    NoGradGuard no_grad;
    w.mul_(0.9);
    return x * 1.0;
  });
  expect_error(error_of([&] { decay(randn({3}, kFloat64)); }),
               {"compile (compiled at", "mul_ modifies a tensor that requires grad (a parameter) in place",
                "would run once, while tracing"});
  // In place on a traced value.
  auto in_place = compile([](const Tensor& x) {
    Tensor y = x * 1.0;
    y.add_(1.0);
    return y;
  });
  expect_error(error_of([&] { in_place(randn({3}, kFloat64)); }),
               {"compile (compiled at", "add_ modifies a traced tensor in place", "(add)"});
  // With grad mode on, parameters or inputs that require grad would get no
  // gradient from a compiled call: refused.
  auto model = make_mlp();
  auto forward = compile([&](const Tensor& x) { return model->forward(x); });
  expect_error(error_of([&] { forward(randn({2, 6}, kFloat64)); }),
               {"compile (compiled at", "require grad (module parameters)", "NoGradGuard"});
  auto plain = compile([](const Tensor& x) { return x * 2.0; });
  expect_error(error_of([&] { plain(randn({2}, kFloat64).requires_grad_()); }),
               {"compile (compiled at", "input 0 requires grad", "NoGradGuard"});
  // Outside compile() the same mistakes in a graph keep graph-mode advice.
  graph::Graph g;
  Tensor p = g.placeholder(kFloat64, {3}, "p");
  expect_error(error_of([&] { sum(p).backward(); }), {"backward: output 0 is a graph value", "graph::gradients"});
  expect_error(error_of([&] { v.sub_(p); }), {"sub_: writes a graph value into a concrete tensor", "graph::assign"});
}

TEST(Compile, MultipleOutputsInputsAndConstants) {
  Tensor c = tensor(std::vector<double>{1.0, 2.0}, {2});
  auto f = compile([&](const std::vector<Tensor>& xs) -> std::vector<Tensor> {
    return {xs[0] + xs[1], xs[0] * xs[1], sum(xs[0]), xs[1], c};
  });
  Tensor a = randn({2}, kFloat64), b = randn({2}, kFloat64);
  std::vector<Tensor> out = f({a, b});
  ASSERT_EQ(out.size(), 5u);
  assert_close(out[0], a + b, {.rtol = 0.0, .atol = 1e-15});
  assert_close(out[1], a * b, {.rtol = 0.0, .atol = 1e-15});
  assert_close(out[2], sum(a), {.rtol = 0.0, .atol = 1e-15});
  assert_close(out[3], b, {.rtol = 0.0, .atol = 0.0 + 1e-300});
  assert_close(out[4], c, {.rtol = 0.0, .atol = 1e-300});
  // A closed-over tensor is referenced, not copied.
  c.mul_(3.0);
  assert_close(f({a, b})[4], tensor(std::vector<double>{3.0, 6.0}, {2}), {.rtol = 0.0, .atol = 1e-300});
  // A braced list is the vector form; the single-tensor call needs exactly one result.
  auto two = compile([](const std::vector<Tensor>& xs) -> std::vector<Tensor> { return {xs[0], xs[0] * 2.0}; });
  EXPECT_EQ(two({a}).size(), 2u);
  expect_error(error_of([&] { two(a); }), {"compile (compiled at", "the function returned 2"});
}

TEST(Compile, CalledOnGraphValuesItAddsToThatGraph) {
  int traced = 0;
  auto inner = compile([&](const Tensor& x) {
    ++traced;
    return relu(x) * 3.0;
  });
  auto outer = compile([&](const Tensor& x) { return inner(x) + 1.0; });
  Tensor x = tensor(std::vector<double>{-1.0, 2.0}, {2});
  assert_close(outer(x), tensor(std::vector<double>{1.0, 7.0}, {2}), {.rtol = 0.0, .atol = 1e-15});
  EXPECT_EQ(inner.num_traces(), 0);  // inlined into outer's graph
  EXPECT_EQ(traced, 1);
}

TEST(Compile, BadFunctionsAndInputs) {
  expect_error(error_of([] { compile(TensorsFn()); }), {"compile: expected a function"});
  auto none = compile([](const std::vector<Tensor>&) { return std::vector<Tensor>{}; });
  expect_error(error_of([&] { none({ones({1})}); }), {"compile (compiled at", "returned no tensors"});
  auto undefined = compile([](const Tensor&) { return Tensor(); });
  expect_error(error_of([&] { undefined(ones({1})); }), {"output 0 of the function is an undefined tensor"});
  auto shape = compile([](const Tensor& x) { return matmul(x, x); });
  expect_error(error_of([&] { shape(ones({2, 3})); }),
               {"matmul: shapes [2, 3] and [2, 3] cannot be multiplied", "while compile (compiled at compile_test.cpp:", "traced its function for inputs float32[2, 3]"});
  auto plain = compile([](const Tensor& x) { return x; });
  expect_error(error_of([&] { plain(Tensor()); }), {"input 0 is an undefined tensor"});
}

TEST(Compile, CallsFromSeveralThreadsShareOneTraceAndGiveEagerResults) {
  manual_seed(11);
  auto model = make_mlp();
  auto f = compile([&](const Tensor& x) { return model->forward(x); });
  std::vector<Tensor> xs, want;
  {
    NoGradGuard no_grad;
    for (int i = 0; i < 4; ++i) {
      xs.push_back(randn({5, 6}, kFloat64));
      want.push_back(model->forward(xs.back()));
    }
  }
  std::vector<double> worst(4, 0.0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      NoGradGuard no_grad;  // grad mode is per thread
      for (int i = 0; i < 20; ++i) worst[t] = std::max(worst[t], same_dtype_max_abs_diff(f(xs[t]), want[t]));
    });
  for (auto& th : threads) th.join();
  for (double w : worst) EXPECT_LT(w, 1e-13);
  EXPECT_EQ(f.num_traces(), 1);
  EXPECT_EQ(f.num_calls(), 80);
}

TEST(Compile, AFunctionCallingItselfWhileTracedIsAnError) {
  CompiledFunction f;
  f = compile([&](const Tensor& x) { return x + f(ones({3}, kFloat64)); });
  expect_error(error_of([&] { f(ones({3}, kFloat64)); }),
               {"compile (compiled at", "called itself with concrete tensors while it was being traced"});
  EXPECT_EQ(f.num_traces(), 0);
}

}  // namespace
}  // namespace nabla

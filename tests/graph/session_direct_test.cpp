// The Session's direct path (node_kernel.h): op kernels resolved when the
// plan is built and called into result buffers reused from run to run. It
// must compute bit for bit what eager call() computes, never hand out a
// buffer the caller still holds, and, for a training step in steady state,
// allocate nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"
#include "tests/support/max_abs_diff.h"

namespace nabla::graph {
namespace {

using nabla::testing::assert_close;

using nabla::testing::max_abs_diff;

struct Sample {
  std::string name;
  std::function<Tensor(const Tensor&, const Tensor&)> fn;  // of a [6, 7] and a [7, 5] tensor
};

// A sample of the op table: binary and unary elementwise ops, broadcasting,
// reductions, products, softmax, comparisons and ops with integer attributes.
std::vector<Sample> samples() {
  return {
      {"add row", [](const Tensor& a, const Tensor& b) { return a + b.sum({1}).reshape({1, 7}); }},
      {"sub mul div", [](const Tensor& a, const Tensor&) { return (a - 0.5) * a / (a * a + 1.0); }},
      {"exp tanh relu", [](const Tensor& a, const Tensor&) { return relu(tanh(exp(a))); }},
      {"sigmoid sqrt abs", [](const Tensor& a, const Tensor&) { return sqrt(abs(sigmoid(a))); }},
      {"pow", [](const Tensor& a, const Tensor&) { return pow(abs(a), 1.5); }},
      {"sum dim", [](const Tensor& a, const Tensor&) { return a.sum({0}); }},
      {"mean keepdim", [](const Tensor& a, const Tensor&) { return mean(a, {1}, true); }},
      {"max", [](const Tensor& a, const Tensor&) { return amax(a, {1}); }},
      {"matmul", [](const Tensor& a, const Tensor& b) { return matmul(a, b); }},
      {"matmul transposed", [](const Tensor& a, const Tensor& b) { return matmul(b.t(), a.t()); }},
      {"softmax", [](const Tensor& a, const Tensor&) { return softmax(a, 1); }},
      {"log_softmax", [](const Tensor& a, const Tensor&) { return log_softmax(a, 0); }},
      {"where gt", [](const Tensor& a, const Tensor&) { return where(a > 0.0, a, a * 0.1); }},
      {"mse sum", [](const Tensor& a, const Tensor&) { return mse_loss(a, a * 0.5 + 0.25, "sum"); }},
  };
}

TEST(SessionDirect, OpsGiveBitwiseTheResultsOfEagerCalls) {
  for (DType dt : {kFloat32, kFloat64}) {
    Tensor av = randn({6, 7}, dt), bv = randn({7, 5}, dt);
    for (const Sample& s : samples()) {
      Graph g;
      Tensor a = g.placeholder(dt, {6, 7}, "a");
      Tensor b = g.placeholder(dt, {7, 5}, "b");
      Tensor y = s.fn(a, b);
      Tensor want = s.fn(av, bv);
      for (SessionOptions options : {SessionOptions{}, SessionOptions{.fuse = false}, SessionOptions{.optimize = false}}) {
        Session sess(g, options);
        for (int run = 0; run < 3; ++run) {  // later runs write into the buffers of the first
          Tensor got = sess.run(y, {{a, av}, {b, bv}});
          ASSERT_EQ(got.sizes(), want.sizes()) << s.name;
          assert_close(got, want,
                       {.rtol = 0.0, .atol = 0.0, .msg = ::nabla::detail::concat(s.name, " ", dt, " run ", run)});
        }
        EXPECT_GT(sess.stats().direct_ops_executed + sess.stats().fused_ops_executed, 0) << s.name;
      }
    }
  }
}

TEST(SessionDirect, PromotionAndReducedFloatsStillGoThroughCall) {
  Graph g;
  Tensor a = g.placeholder(kFloat32, {4}, "a");
  Tensor i = g.placeholder(kInt64, {4}, "i");
  Tensor h = g.placeholder(kBFloat16, {4}, "h");
  Tensor mixed = a * i;  // promotion: the int64 input is cast
  Tensor half = exp(h);  // bfloat16: computed in float32
  Tensor av = randn({4}), iv = arange(4), hv = randn({4}).to(kBFloat16);
  Session sess(g);
  auto out = sess.run({mixed, half}, {{a, av}, {i, iv}, {h, hv}});
  assert_close(out[0], av * iv, {.rtol = 0.0, .atol = 0.0});
  assert_close(out[1], exp(hv), {.rtol = 0.0, .atol = 0.0});
  EXPECT_EQ(sess.stats().direct_ops_executed, 0);
}

TEST(SessionDirect, AFetchedValueTheCallerKeepsIsNotOverwrittenByTheNextRun) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {3, 4}, "x");
  Tensor y = matmul(exp(x), x.t());
  Tensor v = y.t();  // a fetched view of a buffer
  Session sess(g);
  Tensor x1 = randn({3, 4}), x2 = randn({3, 4});
  auto first = sess.run({y, v}, {{x, x1}});
  const Tensor y1 = first[0].clone(), v1 = first[1].clone();
  auto second = sess.run({y, v}, {{x, x2}});
  assert_close(first[0], y1, {.rtol = 0.0, .atol = 0.0});
  assert_close(first[1], v1, {.rtol = 0.0, .atol = 0.0});
  assert_close(second[0], matmul(exp(x2), x2.t()), {.rtol = 0.0, .atol = 0.0});
  EXPECT_GT(max_abs_diff(second[0], y1), 0.0);
}

TEST(SessionDirect, AStridedValueReadByTwoChainsGivesThePlainResults) {
  for (DType dt : {kFloat32, kFloat64}) {
    Graph g;
    Tensor a = g.placeholder(dt, {70, 45}, "a");
    Tensor b = g.placeholder(dt, {45, 33}, "b");
    Tensor t = matmul(a, b).t();  // [33, 70], a transposed product: strided
    Tensor u = t * 2.0 + 1.0;     // two chains read it: it is made contiguous once
    Tensor v = t * t * 0.5;
    Tensor av = randn({70, 45}, dt), bv = randn({45, 33}, dt);
    Session fast(g), plain(g, {.optimize = false});
    for (int run = 0; run < 2; ++run) {
      auto got = fast.run({u, v, t}, {{a, av}, {b, bv}});
      auto want = plain.run({u, v, t}, {{a, av}, {b, bv}});
      for (std::size_t i = 0; i < 3; ++i)
        assert_close(got[i], want[i], {.rtol = 0.0, .atol = 0.0, .msg = ::nabla::detail::concat(dt, " fetch ", i)});
    }
  }
}

// The seed training step of bench/seed_step_bench.cpp, smaller: Linear ->
// ReLU -> Linear, MSE (sum), graph-mode Adam.
struct SeedStep {
  Graph g;
  Tensor x, y, loss, train;
  explicit SeedStep(nn::Sequential& model) {
    x = g.placeholder(kFloat32, {16, 40}, "x");
    y = g.placeholder(kFloat32, {16, 3}, "y");
    nn::ModuleVariables mv(g, model);
    loss = mse_loss(model.forward(x), y, "sum");
    train = AdamOptimizer(1e-3).minimize(loss, mv.trainable_variables());
  }
};

TEST(SessionDirect, SeedTrainingStepAllocatesNothingInSteadyStateAndEqualsAPlainSession) {
  manual_seed(3);
  nn::Sequential model(nn::Linear(40, 20), nn::ReLU(), nn::Linear(20, 3));
  SeedStep step(model);
  Tensor xv = randn({16, 40}), yv = randn({16, 3});
  Session fast(step.g), plain(step.g, {.optimize = false});
  fast.run(step.g.global_variables_initializer());
  plain.run(step.g.global_variables_initializer());
  const Feeds feeds{{step.x, xv}, {step.y, yv}};
  for (int i = 0; i < 3; ++i) {
    float a = fast.run({step.loss, step.train}, feeds)[0].item<float>();
    float b = plain.run({step.loss, step.train}, feeds)[0].item<float>();
    EXPECT_NEAR(a, b, 1e-5 * std::abs(b)) << "step " << i;
  }
  const int64_t bytes_before = fast.stats().bytes_allocated;
  const AllocatorStats system_before = cpu_allocator_stats();
  for (int i = 0; i < 10; ++i) {
    float a = fast.run({step.loss, step.train}, feeds)[0].item<float>();
    float b = plain.run({step.loss, step.train}, feeds)[0].item<float>();
    EXPECT_NEAR(a, b, 1e-5 * std::abs(b)) << "step " << i;
  }
  EXPECT_EQ(fast.stats().bytes_allocated, bytes_before);
  EXPECT_EQ(cpu_allocator_stats().system_allocations, system_before.system_allocations);
  EXPECT_GT(fast.stats().direct_ops_executed, 0);
  for (const Tensor& v : step.g.variables(true))
    // Not bitwise: the optimized plan computes weight gradients as gᵀx, not
    // (xᵀg)ᵀ (passes/transpose_matmul.h), another GEMM summation order.
    assert_close(fast.variable_value(v), plain.variable_value(v),
                 {.rtol = 0.0, .atol = 1e-6, .msg = ::nabla::detail::concat(step.g.node_of(v).name)});
}

}  // namespace
}  // namespace nabla::graph

// graph::cond and graph::while_loop: forward values, only the taken branch
// runs, nesting, gradients against central finite differences and against
// the same computation unrolled eagerly with autograd, and build errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"
#include "support/control_flow_inputs.h"
#include "support/op_info.h"
#include "tests/support/error_message.h"

namespace nabla::graph {
namespace {

using nabla::testing::assert_close;
using nabla::testing::bool_scalar;

using nabla::testing::compare;
using nabla::testing::error_of;
using nabla::testing::expect_error;
using nabla::testing::f64_sample;
using nabla::testing::sample;

// Central differences of the scalar f at x0, element by element.
Tensor finite_difference(const std::function<double(const Tensor&)>& f, const Tensor& x0, double eps = 1e-6) {
  std::vector<double> base = x0.contiguous().to_vector<double>();
  std::vector<double> g(base.size());
  for (std::size_t i = 0; i < base.size(); ++i) {
    std::vector<double> plus = base, minus = base;
    plus[i] += eps;
    minus[i] -= eps;
    g[i] = (f(tensor(plus, x0.sizes())) - f(tensor(minus, x0.sizes()))) / (2 * eps);
  }
  return tensor(g, x0.sizes());
}

TEST(GraphControlFlow, CondPicksTheBranchAndRunsOnlyIt) {
  Tensor xv = f64_sample({4}, 1);
  Graph g;
  Tensor p = g.placeholder(kBool, {}, "p");
  Tensor x = g.placeholder(kFloat64, {4}, "x");
  Tensor idx = g.placeholder(kInt64, {1}, "idx");
  // The false branch reads x at a fed index: fed out of range, it fails if run.
  Tensor y = cond(
      p, [&] { return sum(x * 2.0); }, [&] { return sum(exp(index_select(x, 0, idx))); });
  Session sess(g);
  Tensor bad = full({1}, 7, TensorOptions().dtype(kInt64));
  int64_t before = sess.stats().ops_executed;
  assert_close(sess.run(y, {{p, bool_scalar(true)}, {x, xv}, {idx, bad}}), sum(xv * 2.0),
               {.rtol = 1e-10, .atol = 1e-12});
  const int64_t true_ops = sess.stats().ops_executed - before;
  EXPECT_EQ(true_ops, 2);  // mul and sum, nothing of the false branch
  std::string err = error_of([&] { sess.run(y, {{p, bool_scalar(false)}, {x, xv}, {idx, bad}}); });
  expect_error(err, {"index_select", "false branch of cond"});
  Tensor ok = full({1}, 2, TensorOptions().dtype(kInt64));
  before = sess.stats().ops_executed;
  assert_close(sess.run(y, {{p, bool_scalar(false)}, {x, xv}, {idx, ok}}), exp(xv.index_select(0, ok)).sum(),
               {.rtol = 1e-10, .atol = 1e-12});
  EXPECT_EQ(sess.stats().ops_executed - before, 3);
}

TEST(GraphControlFlow, CondWithSeveralOutputsCapturesAndConcretePred) {
  Tensor xv = f64_sample({2, 3}, 2), wv = f64_sample({3}, 3);
  Graph g;
  Tensor x = g.placeholder(kFloat64, {2, 3}, "x");
  Tensor w = g.variable(wv, "w");
  Tensor p = sum(x) > 0.0;
  std::vector<Tensor> out = cond(
      p, [&]() -> std::vector<Tensor> { return {x * w, sum(x)}; },
      [&]() -> std::vector<Tensor> { return {x - w, ones({}, kFloat64)}; });
  ASSERT_EQ(out.size(), 2u);
  // A concrete pred calls one function directly: no node.
  const int nodes = g.num_nodes();
  Tensor direct = cond(
      bool_scalar(false), [&] { return x * 3.0; }, [&] { return x * 4.0; });
  EXPECT_EQ(g.num_nodes(), nodes + 2);  // the constant 4 and the mul, no cond
  Session sess(g);
  sess.run(g.global_variables_initializer());
  for (double sign : {1.0, -1.0}) {
    Tensor xs = xv.abs() * sign;
    std::vector<Tensor> got = sess.run({out[0], out[1], direct}, {{x, xs}});
    assert_close(got[0], sign > 0 ? xs * wv : xs - wv, {.rtol = 1e-10, .atol = 1e-12});
    assert_close(got[1], sign > 0 ? xs.sum() : ones({}, kFloat64), {.rtol = 1e-10, .atol = 1e-12});
    assert_close(got[2], xs * 4.0, {.rtol = 1e-10, .atol = 1e-12});
  }
}

TEST(GraphControlFlow, NestedCond) {
  Tensor xv = f64_sample({3}, 4);
  Graph g;
  Tensor a = g.placeholder(kBool, {}, "a");
  Tensor b = g.placeholder(kBool, {}, "b");
  Tensor x = g.placeholder(kFloat64, {3}, "x");
  Tensor y = cond(
      a, [&] { return cond(b, [&] { return x * 2.0; }, [&] { return sin(x); }); }, [&] { return x - 1.0; });
  Tensor dy = gradients(sum(y * y), {x})[0];
  Session sess(g);
  for (bool av : {true, false})
    for (bool bv : {true, false}) {
      Tensor expected = av ? (bv ? xv * 2.0 : sin(xv)) : xv - 1.0;
      Tensor expected_grad = av ? (bv ? 8.0 * xv : 2.0 * sin(xv) * cos(xv)) : 2.0 * (xv - 1.0);
      std::vector<Tensor> got = sess.run({y, dy}, {{a, bool_scalar(av)}, {b, bool_scalar(bv)}, {x, xv}});
      assert_close(got[0], expected, {.rtol = 1e-10, .atol = 1e-12});
      assert_close(got[1], expected_grad, {.rtol = 1e-10, .atol = 1e-12});
    }
}

TEST(GraphControlFlow, WhileLoopRepeatedSquaringSumAndMaximumIterations) {
  Tensor xv = f64_sample({3}, 5) * 0.5 + 1.0;
  Graph g;
  Tensor x = g.placeholder(kFloat64, {3}, "x");
  Tensor n = g.placeholder(kInt64, {}, "n");
  // x^(2^n) by repeated squaring.
  std::vector<Tensor> sq = while_loop([&](const std::vector<Tensor>& v) { return v[0] < n; },
                                      [&](const std::vector<Tensor>& v) -> std::vector<Tensor> {
                                        return {v[0] + 1, v[1] * v[1]};
                                      },
                                      {zeros({}, kInt64), x});
  // s = sum_{i < 10} i * x, stopped after 4 body runs.
  std::vector<Tensor> capped = while_loop([&](const std::vector<Tensor>& v) { return v[0] < 10; },
                                          [&](const std::vector<Tensor>& v) -> std::vector<Tensor> {
                                            return {v[0] + 1, v[1] + v[0].to(kFloat64) * x};
                                          },
                                          {zeros({}, kInt64), x * 0.0}, 4);
  Session sess(g);
  for (int64_t k : {0, 1, 3}) {
    std::vector<Tensor> got =
        sess.run({sq[0], sq[1], capped[0], capped[1]}, {{x, xv}, {n, full({}, k, TensorOptions().dtype(kInt64))}});
    EXPECT_EQ(got[0].item<int64_t>(), k);
    assert_close(got[1], pow(xv, std::pow(2.0, static_cast<double>(k))), {.rtol = 1e-10, .atol = 1e-12});
    EXPECT_EQ(got[2].item<int64_t>(), 4);
    assert_close(got[3], xv * 6.0, {.rtol = 1e-10, .atol = 1e-12});  // 0 + 1 + 2 + 3
  }
}

// h <- tanh(W h + x) for `steps` steps.
Tensor rnn_eager(const Tensor& w, const Tensor& h0, const Tensor& x, int steps) {
  Tensor h = h0;
  for (int i = 0; i < steps; ++i) h = tanh(matmul(w, h) + x);
  return h;
}

struct Rnn {
  Graph g;
  Tensor w = g.placeholder(kFloat64, {3, 3}, "w");
  Tensor h0 = g.placeholder(kFloat64, {3}, "h0");
  Tensor x = g.placeholder(kFloat64, {3}, "x");
  Tensor steps = g.placeholder(kInt64, {}, "steps");
  Tensor h = while_loop([&](const std::vector<Tensor>& v) { return v[0] < steps; },
                        [&](const std::vector<Tensor>& v) -> std::vector<Tensor> {
                          return {v[0] + 1, tanh(matmul(w, v[1]) + x)};
                        },
                        {zeros({}, kInt64), h0})[1];
  Tensor loss = sum(h * h) + sum(h);
};

TEST(GraphControlFlow, RnnLoopForwardAndGradientsMatchUnrolledEagerAndFiniteDifferences) {
  Tensor wv = f64_sample({3, 3}, 6), h0v = f64_sample({3}, 7), xv = f64_sample({3}, 8);
  Rnn r;
  std::vector<Tensor> gs = gradients(r.loss, {r.w, r.h0, r.x});
  Session sess(r.g);
  for (int steps : {0, 1, 5}) {
    Feeds feeds{{r.w, wv}, {r.h0, h0v}, {r.x, xv}, {r.steps, full({}, steps, TensorOptions().dtype(kInt64))}};
    std::vector<Tensor> got = sess.run({r.h, gs[0], gs[1], gs[2]}, feeds);
    Tensor ew = wv.clone().requires_grad_(), eh = h0v.clone().requires_grad_(), ex = xv.clone().requires_grad_();
    Tensor hh = rnn_eager(ew, eh, ex, steps);
    Tensor eloss = sum(hh * hh) + sum(hh);
    TensorList eg = grad({eloss}, {ew, eh, ex}, {}, std::nullopt, false, true);
    assert_close(got[0], hh.detach(), {.rtol = 1e-10, .atol = 1e-12});
    assert_close(got[1], eg[0].defined() ? eg[0] : zeros({3, 3}, kFloat64), {.rtol = 1e-10, .atol = 1e-12});
    assert_close(got[2], eg[1], {.rtol = 1e-10, .atol = 1e-12});
    assert_close(got[3], eg[2].defined() ? eg[2] : zeros({3}, kFloat64), {.rtol = 1e-10, .atol = 1e-12});
    // Central differences through the Session itself.
    auto loss_at = [&](std::size_t which, const Tensor& v) {
      Feeds f = feeds;
      f[which].second = v;
      return sess.run(r.loss, f).item<double>();
    };
    assert_close(got[1], finite_difference([&](const Tensor& v) { return loss_at(0, v); }, wv),
                 {.rtol = 1e-6, .atol = 1e-8});
    assert_close(got[2], finite_difference([&](const Tensor& v) { return loss_at(1, v); }, h0v),
                 {.rtol = 1e-6, .atol = 1e-8});
    assert_close(got[3], finite_difference([&](const Tensor& v) { return loss_at(2, v); }, xv),
                 {.rtol = 1e-6, .atol = 1e-8});
  }
}

TEST(GraphControlFlow, CondGradientsWrtInputsAndCapturesMatchFiniteDifferences) {
  Tensor xv = f64_sample({2, 2}, 9), wv = f64_sample({2, 2}, 10);
  Graph g;
  Tensor p = g.placeholder(kBool, {}, "p");
  Tensor x = g.placeholder(kFloat64, {2, 2}, "x");
  Tensor w = g.placeholder(kFloat64, {2, 2}, "w");
  // w is used only by the true branch: its gradient is zero when false runs.
  Tensor y = cond(
      p, [&] { return tanh(matmul(x, w)); }, [&] { return exp(x) * 0.5; });
  Tensor loss = sum(y * y);
  std::vector<Tensor> gs = gradients(loss, {x, w});
  Session sess(g);
  for (bool pv : {true, false}) {
    Feeds feeds{{p, bool_scalar(pv)}, {x, xv}, {w, wv}};
    std::vector<Tensor> got = sess.run({gs[0], gs[1]}, feeds);
    auto loss_at = [&](std::size_t which, const Tensor& v) {
      Feeds f = feeds;
      f[which].second = v;
      return sess.run(loss, f).item<double>();
    };
    assert_close(got[0], finite_difference([&](const Tensor& v) { return loss_at(1, v); }, xv),
                 {.rtol = 1e-6, .atol = 1e-8});
    assert_close(got[1], finite_difference([&](const Tensor& v) { return loss_at(2, v); }, wv),
                 {.rtol = 1e-6, .atol = 1e-8});
    if (!pv) assert_close(got[1], zeros({2, 2}, kFloat64), {.rtol = 1e-10, .atol = 1e-12});
  }
}

TEST(GraphControlFlow, WhileGradientWithCapturedWeightInsideACond) {
  // A loop whose body holds a cond: h <- h * w if sum(h) > 0 else h + w.
  Tensor wv = f64_sample({3}, 11), hv = f64_sample({3}, 12);
  Graph g;
  Tensor w = g.placeholder(kFloat64, {3}, "w");
  Tensor h0 = g.placeholder(kFloat64, {3}, "h0");
  Tensor h = while_loop([&](const std::vector<Tensor>& v) { return v[0] < 4; },
                        [&](const std::vector<Tensor>& v) -> std::vector<Tensor> {
                          Tensor next = cond(
                              sum(v[1]) > 0.0, [&] { return v[1] * w; }, [&] { return v[1] + w; });
                          return {v[0] + 1, next};
                        },
                        {zeros({}, kInt64), h0})[1];
  Tensor loss = sum(sin(h));
  std::vector<Tensor> gs = gradients(loss, {w, h0});
  Session sess(g);
  Feeds feeds{{w, wv}, {h0, hv}};
  std::vector<Tensor> got = sess.run({gs[0], gs[1]}, feeds);
  auto loss_at = [&](std::size_t which, const Tensor& v) {
    Feeds f = feeds;
    f[which].second = v;
    return sess.run(loss, f).item<double>();
  };
  assert_close(got[0], finite_difference([&](const Tensor& v) { return loss_at(0, v); }, wv),
               {.rtol = 1e-6, .atol = 1e-8});
  assert_close(got[1], finite_difference([&](const Tensor& v) { return loss_at(1, v); }, hv),
               {.rtol = 1e-6, .atol = 1e-8});
}

TEST(GraphControlFlow, SecondDerivativeThroughCondAndUnoptimizedSession) {
  Tensor xv = f64_sample({3}, 14);
  Graph g;
  Tensor p = g.placeholder(kBool, {}, "p");
  Tensor x = g.placeholder(kFloat64, {3}, "x");
  Tensor y = cond(
      p, [&] { return x * x * x; }, [&] { return sin(x); });
  Tensor dx = gradients(sum(y), {x})[0];
  Tensor d2x = gradients(sum(dx), {x})[0];
  Session sess(g, SessionOptions{.optimize = false});
  for (bool pv : {true, false}) {
    std::vector<Tensor> got = sess.run({y, dx, d2x}, {{p, bool_scalar(pv)}, {x, xv}});
    assert_close(got[0], pv ? xv * xv * xv : sin(xv), {.rtol = 1e-10, .atol = 1e-12});
    assert_close(got[1], pv ? 3.0 * xv * xv : cos(xv), {.rtol = 1e-10, .atol = 1e-12});
    assert_close(got[2], pv ? 6.0 * xv : -sin(xv), {.rtol = 1e-10, .atol = 1e-12});
  }
}

TEST(GraphControlFlow, WhileGradientCannotBeDifferentiatedAgain) {
  Graph g;
  Tensor x = g.placeholder(kFloat64, {2}, "x");
  Tensor h = while_loop([&](const std::vector<Tensor>& v) { return v[0] < 3; },
                        [&](const std::vector<Tensor>& v) -> std::vector<Tensor> { return {v[0] + 1, sin(v[1])}; },
                        {zeros({}, kInt64), x})[1];
  Tensor dx = gradients(sum(h), {x})[0];
  expect_error(error_of([&] { gradients(sum(dx), {x}); }),
               {"gradients", "gradient of a while_loop", "not supported"});
}

TEST(GraphControlFlow, LoopInsideCondInsideLoopGradients) {
  // Outer loop of 2 steps whose body is cond(sum(h) > 0, inner loop of 3 sin
  // steps scaled by w, h * w): gradients through both levels of nesting.
  Tensor wv = f64_sample({2}, 15), hv = f64_sample({2}, 16);
  Graph g;
  Tensor w = g.placeholder(kFloat64, {2}, "w");
  Tensor h0 = g.placeholder(kFloat64, {2}, "h0");
  auto counter = [](int64_t n) { return [n](const std::vector<Tensor>& v) { return v[0] < n; }; };
  Tensor h = while_loop(counter(2),
                        [&](const std::vector<Tensor>& v) -> std::vector<Tensor> {
                          Tensor next = cond(
                              sum(v[1]) > 0.0,
                              [&] {
                                return while_loop(counter(3),
                                                  [&](const std::vector<Tensor>& u) -> std::vector<Tensor> {
                                                    return {u[0] + 1, sin(u[1]) * w};
                                                  },
                                                  {zeros({}, kInt64), v[1]})[1];
                              },
                              [&] { return v[1] * w; });
                          return {v[0] + 1, next};
                        },
                        {zeros({}, kInt64), h0})[1];
  Tensor loss = sum(h * h);
  std::vector<Tensor> gs = gradients(loss, {w, h0});
  EXPECT_NE(g.to_text().find("while"), std::string::npos);
  Session sess(g);
  for (double sign : {1.0, -1.0}) {
    Tensor h0s = hv.abs() * sign;
    Feeds feeds{{w, wv}, {h0, h0s}};
    std::vector<Tensor> got = sess.run({gs[0], gs[1]}, feeds);
    auto loss_at = [&](std::size_t which, const Tensor& v) {
      Feeds f = feeds;
      f[which].second = v;
      return sess.run(loss, f).item<double>();
    };
    assert_close(got[0], finite_difference([&](const Tensor& v) { return loss_at(0, v); }, wv),
                 {.rtol = 1e-6, .atol = 1e-8});
    assert_close(got[1], finite_difference([&](const Tensor& v) { return loss_at(1, v); }, h0s),
                 {.rtol = 1e-6, .atol = 1e-8});
  }
}

TEST(GraphControlFlow, BuildErrorsNameTheConstructAndLine) {
  Graph g;
  Tensor p = g.placeholder(kBool, {}, "p");
  Tensor x = g.placeholder(kFloat64, {3}, "x");
  Tensor v = g.variable(zeros({3}, kFloat64), "v");
  expect_error(error_of([&] { cond(p, [&] { return x; }, [&] { return x.to(kFloat32); }); }),
               {"cond (created at", "control_flow_test.cpp", "value 0", "float64", "float32", "equal dtypes"});
  expect_error(error_of([&] { cond(p, [&] { return x; }, [&] { return sum(x); }); }),
               {"cond (created at", "shape [3]", "shape []"});
  expect_error(error_of([&] {
                 cond(
                     p, [&]() -> std::vector<Tensor> { return {x, x}; },
                     [&]() -> std::vector<Tensor> { return {x}; });
               }),
               {"cond", "returns 2 values but the false branch returns 1"});
  expect_error(error_of([&] { cond(x, [&] { return x; }, [&] { return x; }); }),
               {"cond", "pred must be a scalar bool", "float64"});
  expect_error(error_of([&] { cond(x > 0.0, [&] { return x; }, [&] { return x; }); }),
               {"pred must be a scalar bool", "shape [3]"});
  expect_error(error_of([&] {
                 while_loop([&](const std::vector<Tensor>& s) { return sum(s[0]); },
                            [&](const std::vector<Tensor>& s) -> std::vector<Tensor> { return {s[0]}; }, {x});
               }),
               {"while_loop (created at", "cond_fn must return a scalar bool"});
  expect_error(error_of([&] {
                 while_loop([&](const std::vector<Tensor>& s) { return sum(s[0]) > 0.0; },
                            [&](const std::vector<Tensor>& s) -> std::vector<Tensor> { return {sum(s[0])}; }, {x});
               }),
               {"while_loop (created at", "loop variable 0", "keep each loop variable's dtype and shape"});
  expect_error(error_of([&] {
                 while_loop([&](const std::vector<Tensor>& s) { return sum(s[0]) > 0.0; },
                            [&](const std::vector<Tensor>& s) -> std::vector<Tensor> { return {s[0], s[0]}; }, {x});
               }),
               {"while_loop", "returns 2 values but there are 1 loop variables"});
  // A value made inside a branch, used outside it.
  Tensor inner;
  cond(p, [&] { return inner = x * 2.0; }, [&] { return x; });
  expect_error(error_of([&] { relu(inner); }),
               {"relu", "was made inside the true branch of cond", "cannot be used outside"});
  expect_error(error_of([&] { cond(p, [&] { return x; }, [&] { return inner + 1.0; }); }),
               {"was made inside the true branch of cond"});
  expect_error(error_of([&] {
                 Session(g).run(inner, {{p, bool_scalar(true)}, {x, zeros({3}, kFloat64)}});
               }),
               {"Session::run: fetch 0", "was made inside the true branch of cond"});
  // Effects inside a branch are refused.
  expect_error(error_of([&] { cond(p, [&] { return assign_add(v, x); }, [&] { return x; }); }),
               {"cannot be made inside a cond branch or while_loop function"});
  // The graph is still usable after the errors: nothing is left open.
  Tensor y = cond(p, [&] { return x + 1.0; }, [&] { return x - 1.0; });
  Session sess(g);
  Tensor xv = f64_sample({3}, 13);
  assert_close(sess.run(y, {{p, bool_scalar(true)}, {x, xv}}), xv + 1.0, {.rtol = 1e-10, .atol = 1e-12});
}

}  // namespace
}  // namespace nabla::graph

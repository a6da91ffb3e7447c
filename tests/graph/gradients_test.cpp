// graph::gradients: symbolic gradients built from the eager gradient rules.
// Values are checked against eager autograd and finite differences (float64);
// second derivatives against eager double backward (create_graph) and finite
// differences of the graph's own first gradients; bad calls against their
// error messages.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"
#include "support/op_info.h"
#include "tests/support/error_message.h"

namespace nabla::graph {
namespace {

using nabla::testing::assert_close;

using nabla::testing::compare;
using nabla::testing::error_of;
using nabla::testing::expect_error;
using nabla::testing::sample;

// float64 values uniform in [-1.5, 1.5], drawn from `seed`.
Tensor wide_f64_sample(IntList shape, uint64_t seed) { return sample(shape, -1.5, 1.5, seed); }

TEST(GraphGradients, MlpLossMatchesEagerAutograd) {
  Tensor xv = wide_f64_sample({4, 5}, 1), w1v = wide_f64_sample({5, 3}, 2), w2v = wide_f64_sample({3, 2}, 3),
         yv = wide_f64_sample({4, 2}, 4);
  Graph g;
  Tensor x = g.placeholder(kFloat64, {4, 5}, "x");
  Tensor y = g.placeholder(kFloat64, {4, 2}, "y");
  Tensor w1 = g.variable(w1v, "w1");
  Tensor w2 = g.constant(w2v, "w2");
  Tensor h = maximum(matmul(x, w1), zeros({}, kFloat64));
  Tensor loss = mean(sum(pow(matmul(h, w2) - y, 2), {1}));
  std::vector<Tensor> gs = gradients(loss, {w1, w2, x});
  ASSERT_EQ(gs.size(), 3u);
  for (const Tensor& t : gs) ASSERT_TRUE(t.is_symbolic());
  Session sess(g);
  sess.run(g.global_variables_initializer());
  std::vector<Tensor> got = sess.run({loss, gs[0], gs[1], gs[2]}, {{x, xv}, {y, yv}});

  Tensor ex = xv.clone().requires_grad_(), e1 = w1v.clone().requires_grad_(), e2 = w2v.clone().requires_grad_();
  Tensor eh = maximum(matmul(ex, e1), zeros({}, kFloat64));
  Tensor eloss = mean(sum(pow(matmul(eh, e2) - yv, 2), {1}));
  TensorList eg = grad({eloss}, {e1, e2, ex});
  assert_close(got[0], eloss.detach(), {.rtol = 1e-10, .atol = 1e-12});
  assert_close(got[1], eg[0], {.rtol = 1e-10, .atol = 1e-12});
  assert_close(got[2], eg[1], {.rtol = 1e-10, .atol = 1e-12});
  assert_close(got[3], eg[2], {.rtol = 1e-10, .atol = 1e-12});
}

TEST(GraphGradients, SeveralConsumersAccumulateAndBroadcastingReduces) {
  // y = sum(x * b + x * x + b) with b of shape [3] broadcast over x [2, 3]:
  // dy/dx = b + 2x, dy/db = sum over rows of x + 2 (b is used twice).
  Tensor xv = wide_f64_sample({2, 3}, 5), bv = wide_f64_sample({3}, 6);
  Graph g;
  Tensor x = g.placeholder(kFloat64, {2, 3}, "x");
  Tensor b = g.placeholder(kFloat64, {3}, "b");
  Tensor y = sum(x * b + x * x + b);
  std::vector<Tensor> gs = gradients(y, {x, b});
  EXPECT_EQ(gs[1].sizes(), (Shape{3}));
  Session sess(g);
  std::vector<Tensor> got = sess.run(gs, {{x, xv}, {b, bv}});
  assert_close(got[0], bv + 2.0 * xv, {.rtol = 1e-10, .atol = 1e-12});
  assert_close(got[1], sum(xv, {0}) + 2.0, {.rtol = 1e-10, .atol = 1e-12});
}

TEST(GraphGradients, MultiOutputOpAndIntegerOutputsCarryNoGradient) {
  // max along a dim returns (values, int64 indices): the gradient flows to the
  // chosen elements; indices used later (as a float) carry none.
  Tensor xv = wide_f64_sample({3, 4}, 7);
  Graph g;
  Tensor x = g.placeholder(kFloat64, {3, 4}, "x");
  auto [values, indices] = max(x, 1);
  Tensor y = sum(values * 2.0) + sum(indices.to(kFloat64));
  std::vector<Tensor> gs = gradients(y, {x});
  Session sess(g);
  Tensor got = sess.run(gs[0], {{x, xv}});
  Tensor ex = xv.clone().requires_grad_();
  auto [ev, ei] = max(ex, 1);
  Tensor eloss = sum(ev * 2.0) + sum(ei.to(kFloat64));
  assert_close(got, grad({eloss}, {ex})[0], {.rtol = 1e-10, .atol = 1e-12});
  // Gradients w.r.t. the integer output itself: none (TensorFlow's None).
  EXPECT_FALSE(gradients(y, {indices})[0].defined());
}

TEST(GraphGradients, UnreachedAndNonDifferentiablePathsGiveUndefined) {
  Graph g;
  Tensor x = g.placeholder(kFloat64, {3}, "x");
  Tensor unused = g.placeholder(kFloat64, {3}, "unused");
  Tensor later = x * 3.0;  // made from x but not on the path to y
  Tensor y = sum(x * x);
  // Comparisons and argmax are non-differentiable: no gradient flows back.
  Tensor z = sum((x > 0.0).to(kFloat64)) + sum(argmax(x).to(kFloat64));
  std::vector<Tensor> gs = gradients(y, {unused, later, x});
  EXPECT_FALSE(gs[0].defined());
  EXPECT_FALSE(gs[1].defined());
  EXPECT_TRUE(gs[2].defined());
  EXPECT_FALSE(gradients(z, {x})[0].defined());
  // An integer x gets no gradient either.
  Tensor n = g.placeholder(kInt64, {3}, "n");
  EXPECT_FALSE(gradients(sum(x * n.to(kFloat64)), {n})[0].defined());
}

TEST(GraphGradients, IntermediateXsAndXsOnOnePath) {
  // y = sum(tanh(h)), h = x * x: dy/dh = 1 - tanh(h)^2; dy/dx = that * 2x.
  // Asking for h and x together gives both (x's through h).
  Tensor xv = wide_f64_sample({4}, 8);
  Graph g;
  Tensor x = g.placeholder(kFloat64, {4}, "x");
  Tensor h = x * x;
  Tensor y = sum(tanh(h));
  std::vector<Tensor> gs = gradients(y, {h, x});
  Session sess(g);
  std::vector<Tensor> got = sess.run(gs, {{x, xv}});
  Tensor dh = 1.0 - pow(tanh(xv * xv), 2);
  assert_close(got[0], dh, {.rtol = 1e-10, .atol = 1e-12});
  assert_close(got[1], dh * 2.0 * xv, {.rtol = 1e-10, .atol = 1e-12});
  // y itself as an x: its gradient is the seed (ones).
  assert_close(sess.run(gradients(y, {y})[0]), ones({}, kFloat64), {.rtol = 1e-10, .atol = 1e-12});
}

TEST(GraphGradients, GradYsWeightAndSumOverYs) {
  // TensorFlow semantics: d(sum_i <grad_ys_i, ys_i>)/dx; the default seed is ones.
  Tensor xv = wide_f64_sample({2, 3}, 9), gv = wide_f64_sample({2, 3}, 10);
  Graph g;
  Tensor x = g.placeholder(kFloat64, {2, 3}, "x");
  Tensor gy = g.placeholder(kFloat64, {2, 3}, "gy");
  Tensor y1 = sin(x);
  Tensor y2 = x * x;
  Session sess(g);
  Tensor both = sess.run(gradients({y1, y2}, {x})[0], {{x, xv}});
  assert_close(both, cos(xv) + 2.0 * xv, {.rtol = 1e-10, .atol = 1e-12});
  Tensor weighted = sess.run(gradients({y1, y2}, {x}, {gy, Tensor()})[0], {{x, xv}, {gy, gv}});
  assert_close(weighted, cos(xv) * gv + 2.0 * xv, {.rtol = 1e-10, .atol = 1e-12});
  Tensor concrete = sess.run(gradients({y1}, {x}, {gv})[0], {{x, xv}});
  assert_close(concrete, cos(xv) * gv, {.rtol = 1e-10, .atol = 1e-12});
}

TEST(GraphGradients, NodesAreScopedAndRecordTheCallersLine) {
  Graph g;
  Tensor x = g.placeholder(kFloat64, {3}, "x");
  Tensor y = sum(exp(x));
  const int before = g.num_nodes();
  const int line = __LINE__ + 1;
  std::vector<Tensor> gs = gradients(y, {x});
  ASSERT_GT(g.num_nodes(), before);
  for (int i = before; i < g.num_nodes(); ++i) {
    const Node& n = g.node(i);
    EXPECT_EQ(n.name.rfind("gradients/", 0), 0u) << n.name;
    EXPECT_TRUE(n.loc_known) << n.name;
    EXPECT_EQ(n.loc.line(), static_cast<unsigned>(line)) << n.name;
    EXPECT_NE(std::string(n.loc.file_name()).find("gradients_test.cpp"), std::string::npos);
  }
  // The scope ends with the call: later nodes are not under it.
  Tensor z = gs[0] * 2.0;
  EXPECT_EQ(g.node_of(z).name.rfind("gradients/", 0), std::string::npos);
}

TEST(GraphGradients, ErrorsNameGradientsAndWhatWasWrong) {
  Graph g, other;
  Tensor x = g.placeholder(kFloat64, {2, 3}, "x");
  Tensor y = sum(x * x);
  Tensor foreign = other.placeholder(kFloat64, {2, 3}, "foreign");
  Tensor n = g.placeholder(kInt64, {2}, "n");

  expect_error(error_of([&] { gradients(y, {foreign}); }),
               {"gradients:", "xs[0]", "'foreign'", "another graph"});
  Tensor y2 = x * 2.0;
  expect_error(error_of([&] { gradients(std::vector<Tensor>{y2}, {x}, {ones({3, 2}, kFloat64)}); }),
               {"gradients:", "grad_ys[0]", "[3, 2]", "[2, 3]", "same shape and dtype"});
  expect_error(error_of([&] { gradients(std::vector<Tensor>{y2}, {x}, {ones({2, 3}, kFloat32)}); }),
               {"gradients:", "grad_ys[0]", "float32", "float64"});
  expect_error(error_of([&] { gradients(std::vector<Tensor>{y, y2}, {x}, {Tensor()}); }),
               {"gradients:", "2 ys but 1 grad_ys"});
  Tensor foreign_seed = other.placeholder(kFloat64, {}, "seed");
  expect_error(error_of([&] { gradients(std::vector<Tensor>{y}, {x}, {foreign_seed}); }),
               {"gradients:", "grad_ys[0]", "another graph"});
  expect_error(error_of([&] { gradients(ones({2}), {x}); }), {"gradients:", "ys[0]", "not a graph value", "concrete"});
  expect_error(error_of([&] { gradients(y, {ones({2})}); }), {"gradients:", "xs[0]", "not a graph value"});
  expect_error(error_of([&] { gradients(sum(n), {x}); }), {"gradients:", "ys[0]", "int64", "floating"});
  expect_error(error_of([&] { gradients(std::vector<Tensor>{}, {x}); }), {"gradients:", "at least one y"});
  Tensor grp = group({y, y2});
  expect_error(error_of([&] { gradients(grp, {x}); }), {"gradients:", "ys[0]", "no value"});
}

// Ops outside the table's conventions: one without a gradient rule, and one
// whose rule needs data (impossible on symbolic values). Both are clear errors.
OutputMetas same_as_input(const OpDef&, Inputs in, const Attrs&) { return {{in[0].sizes(), in[0].dtype()}}; }
const OpDef no_rule_op{.name = "test_no_rule", .infer = same_as_input};
const OpDef data_rule_op{.name = "test_data_rule", .infer = same_as_input,
                         .grad = [](GradCtx& c) -> TensorList { return {c.grad() * c.input(0).item<double>()}; }};

TEST(GraphGradients, OpsWithoutAUsableRuleAreClearErrors) {
  LocationScope at;  // op nodes record this file and line
  Graph g;
  Tensor x = g.placeholder(kFloat64, {}, "x");
  Tensor a = call1(no_rule_op, {x});
  expect_error(error_of([&] { gradients(a * 2.0, {x}); }),
               {"gradients:", "'test_no_rule'", "has no gradient rule", "gradients_test.cpp"});
  Tensor b = call1(data_rule_op, {x});
  expect_error(error_of([&] { gradients(b * 2.0, {x}); }),
               {"while building the gradient of node 'test_data_rule'"});
  // The failed calls leave no scope behind: later nodes are named as usual.
  EXPECT_EQ(g.node_of(x * 3.0).name.rfind("gradients/", 0), std::string::npos);
}

// ---- second derivatives -------------------------------------------------

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

struct SecondOrderCase {
  std::string name;
  std::vector<Tensor> inputs;  // float64 values
  Fn f;                        // scalar function, for eager and graph values alike
};

std::vector<SecondOrderCase> second_order_cases() {
  Tensor w33 = wide_f64_sample({3, 3}, 40), w24 = wide_f64_sample({2, 4}, 41);
  return {
      {"tanh", {wide_f64_sample({3, 3}, 20)}, [w33](const std::vector<Tensor>& in) { return sum(tanh(in[0]) * w33); }},
      {"matmul",
       {wide_f64_sample({2, 3}, 21), wide_f64_sample({3, 4}, 22)},
       [w24](const std::vector<Tensor>& in) { return sum(pow(matmul(in[0], in[1]), 2) * w24); }},
      {"softmax",
       {wide_f64_sample({3, 3}, 23)},
       [w33](const std::vector<Tensor>& in) { return sum(softmax(in[0], 1) * w33); }},
      {"log_softmax",
       {wide_f64_sample({3, 3}, 24)},
       [w33](const std::vector<Tensor>& in) { return sum(log_softmax(in[0], 1) * w33); }},
      {"cube",
       {wide_f64_sample({3, 3}, 25)},
       [w33](const std::vector<Tensor>& in) { return sum(pow(in[0], 3) * w33); }},
      {"mse",
       {wide_f64_sample({2, 4}, 26), wide_f64_sample({2, 4}, 27)},
       [](const std::vector<Tensor>& in) { return mse_loss(in[0] * in[0], in[1]); }},
  };
}

TEST(GraphGradients, SecondDerivativesMatchEagerDoubleBackwardAndFiniteDifferences) {
  for (const SecondOrderCase& c : second_order_cases()) {
    SCOPED_TRACE(c.name);
    std::vector<Tensor> dirs;
    for (std::size_t i = 0; i < c.inputs.size(); ++i) dirs.push_back(wide_f64_sample(c.inputs[i].sizes(), 60 + i));

    // Graph: g = df/dx; hv = d(sum_i <g_i, v_i>)/dx (a Hessian-vector product).
    Graph gr;
    std::vector<Tensor> xs;
    Feeds feeds;
    for (std::size_t i = 0; i < c.inputs.size(); ++i) {
      xs.push_back(gr.placeholder(kFloat64, c.inputs[i].sizes(), "x" + std::to_string(i)));
      feeds.emplace_back(xs.back(), c.inputs[i]);
    }
    Tensor f = c.f(xs);
    std::vector<Tensor> g1 = gradients(f, xs);
    Tensor s;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      Tensor term = sum(g1[i] * dirs[i]);
      s = s.defined() ? s + term : term;
    }
    std::vector<Tensor> hv = gradients(s, xs);
    Session sess(gr);
    std::vector<Tensor> got_g = sess.run(g1, feeds);
    std::vector<Tensor> got_hv = sess.run(hv, feeds);

    // Eager: grad with create_graph, then grad again.
    TensorList leaves;
    for (const Tensor& v : c.inputs) leaves.push_back(v.clone().requires_grad_());
    Tensor ef = c.f(std::vector<Tensor>(leaves.begin(), leaves.end()));
    TensorList eg = grad({ef}, leaves, {}, std::nullopt, /*create_graph=*/true);
    Tensor es;
    for (std::size_t i = 0; i < leaves.size(); ++i) {
      Tensor term = sum(eg[i] * dirs[i]);
      es = es.defined() ? es + term : term;
    }
    TensorList ehv = grad({es}, leaves, {}, std::nullopt, false, /*allow_unused=*/true);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      assert_close(got_g[i], eg[i].detach(), {.rtol = 1e-10, .atol = 1e-12});
      assert_close(got_hv[i], ehv[i].defined() ? ehv[i] : zeros_like(c.inputs[i]), {.rtol = 1e-10, .atol = 1e-12});
    }

    // Finite differences of the graph's own gradient along the directions:
    // (g(x + e v) - g(x - e v)) / 2e = H v.
    const double eps = 1e-5;
    Feeds plus, minus;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      plus.emplace_back(xs[i], c.inputs[i] + eps * dirs[i]);
      minus.emplace_back(xs[i], c.inputs[i] - eps * dirs[i]);
    }
    std::vector<Tensor> gp = sess.run(g1, plus), gm = sess.run(g1, minus);
    for (std::size_t i = 0; i < xs.size(); ++i)
      assert_close(got_hv[i], (gp[i] - gm[i]) / (2 * eps), {.rtol = 1e-6, .atol = 1e-7});
  }
}

TEST(GraphGradients, ThirdDerivativeOfCubeIsSix) {
  // d^3/dx^3 sum(x^3) = 6 everywhere: gradients of gradients of gradients.
  Graph g;
  Tensor x = g.placeholder(kFloat64, {4}, "x");
  Tensor d1 = gradients(sum(pow(x, 3)), {x})[0];
  Tensor d2 = gradients(sum(d1), {x})[0];
  Tensor d3 = gradients(sum(d2), {x})[0];
  Tensor xv = wide_f64_sample({4}, 30);
  Session sess(g);
  std::vector<Tensor> got = sess.run({d1, d2, d3}, {{x, xv}});
  assert_close(got[0], 3.0 * xv * xv, {.rtol = 1e-10, .atol = 1e-12});
  assert_close(got[1], 6.0 * xv, {.rtol = 1e-10, .atol = 1e-12});
  assert_close(got[2], full({4}, 6.0, kFloat64), {.rtol = 1e-10, .atol = 1e-12});
}

}  // namespace
}  // namespace nabla::graph

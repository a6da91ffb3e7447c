// Saved graphs with control flow (format 1.1): cond, while_loop, a cond
// nested in a loop, and the gradients of a loop (WhileGrad) and of a cond
// survive save + Session::load field for field, subgraph by subgraph, and run
// to the same bits as the graph in this process. Gradients can also be built
// on a loaded graph. Corrupt control-flow files:
// serialize_control_flow_errors_test.cpp; `nabla run` on one:
// tests/tools/nabla_run_control_flow_test.cpp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <string>

#include "nabla/nabla.h"
#include "support/control_flow_inputs.h"
#include "support/op_info.h"
#include "support/same_bits.h"
#include "tests/support/error_message.h"

namespace nabla::graph {
namespace {

namespace fs = std::filesystem;
using nabla::testing::bool_scalar;
using nabla::testing::error_of;
using nabla::testing::expect_error;
using nabla::testing::f64_sample;
using nabla::testing::kNoError;
using nabla::testing::nested_conds;
using nabla::testing::sample;

using nabla::testing::same_bits;

// "name:output" of a value of `g`, what Graph::tensor finds in the loaded graph.
std::string name_of(const Graph& g, const Tensor& t) {
  const ValueRef r = value_of(t)->ref;
  return g.node(r.node).name + ":" + std::to_string(r.output);
}

bool same_refs(const std::vector<ValueRef>& a, const std::vector<ValueRef>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].node != b[i].node || a[i].output != b[i].output) return false;
  return true;
}

// Node tables equal, subgraphs included (recursively): kinds, names, ops,
// attrs count, inputs, metas, params, results, regions.
void expect_same_tables(const GraphData& a, const GraphData& b, const std::string& where) {
  ASSERT_EQ(a.nodes.size(), b.nodes.size()) << where;
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    const Node& x = a.nodes[i];
    const Node& y = b.nodes[i];
    const std::string at = where + " node " + std::to_string(i) + " '" + x.name + "'";
    EXPECT_EQ(x.kind, y.kind) << at;
    EXPECT_EQ(x.name, y.name) << at;
    EXPECT_EQ(x.op, y.op) << at;
    EXPECT_EQ(x.attrs.size(), y.attrs.size()) << at;
    EXPECT_TRUE(same_refs(x.inputs, y.inputs)) << at;
    EXPECT_EQ(x.control_inputs, y.control_inputs) << at;
    ASSERT_EQ(x.metas.size(), y.metas.size()) << at;
    for (std::size_t k = 0; k < x.metas.size(); ++k) {
      EXPECT_EQ(x.metas[k].dtype, y.metas[k].dtype) << at;
      EXPECT_EQ(x.metas[k].sizes, y.metas[k].sizes) << at;
    }
    if (x.kind == NodeKind::Constant) {
      EXPECT_TRUE(same_bits(x.value, y.value)) << at;
    }
    ASSERT_EQ(x.subgraphs.size(), y.subgraphs.size()) << at;
    for (std::size_t k = 0; k < x.subgraphs.size(); ++k) {
      const Subgraph& s = x.subgraphs[k];
      const Subgraph& t = y.subgraphs[k];
      const std::string sat = at + " subgraph " + std::to_string(k);
      EXPECT_EQ(s.params, t.params) << sat;
      EXPECT_TRUE(same_refs(s.results, t.results)) << sat;
      EXPECT_EQ(s.graph->region, t.graph->region) << sat;
      EXPECT_EQ(t.graph->parent.lock().get(), &b) << sat << ": the loaded subgraph knows its parent";
      expect_same_tables(*s.graph, *t.graph, sat);
    }
  }
}

class SavedControlFlow : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nabla_saved_control_flow_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // Saves `sess` (its graph and variables), loads it back, checks the tables
  // match and that each feed set gives the same bits for `fetches` in both.
  void expect_round_trip(Session& sess, const Graph& g, const std::vector<Tensor>& fetches,
                         const std::vector<Feeds>& feed_sets, const std::string& name) {
    sess.save(path(name));
    Session loaded = Session::load(path(name));
    expect_same_tables(*g.data(), *loaded.graph().data(), name);
    std::vector<std::string> fetch_names;
    for (const Tensor& t : fetches) fetch_names.push_back(name_of(g, t));
    for (std::size_t f = 0; f < feed_sets.size(); ++f) {
      NamedFeeds named;
      for (const auto& [t, v] : feed_sets[f]) named.emplace_back(name_of(g, t), v);
      std::vector<Tensor> want = sess.run(fetches, feed_sets[f]);
      std::vector<Tensor> got = loaded.run(fetch_names, named);
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t i = 0; i < want.size(); ++i)
        EXPECT_TRUE(same_bits(got[i], want[i])) << name << " feed set " << f << " fetch " << fetch_names[i] << ": "
                                                << got[i] << "\nvs\n" << want[i];
    }
  }
  fs::path dir_;
};

TEST_F(SavedControlFlow, Cond) {
  Graph g;
  Tensor p = g.placeholder(kBool, {}, "p");
  Tensor x = g.placeholder(kFloat64, {2, 3}, "x");
  Tensor w = g.variable(f64_sample({3, 3}, 1), "w");
  // Several outputs, a capture only one branch uses, a concrete value returned.
  std::vector<Tensor> ys = cond(
      p, [&] { return std::vector<Tensor>{tanh(matmul(x, w)), sum(x)}; },
      [&] { return std::vector<Tensor>{exp(x) * 0.5, full({}, 3.0, TensorOptions().dtype(kFloat64))}; });
  Session sess(g);
  sess.run(g.global_variables_initializer());
  const Tensor xv = f64_sample({2, 3}, 2);
  expect_round_trip(sess, g, ys, {{{p, bool_scalar(true)}, {x, xv}}, {{p, bool_scalar(false)}, {x, xv}}}, "cond.nbg");
}

// h <- tanh(W h + x) for 5 steps: the RNN of the issue.
struct SavedRnn {
  Graph g;
  Tensor w = g.variable(f64_sample({4, 4}, 3), "w");
  Tensor h0 = g.placeholder(kFloat64, {4}, "h0");
  Tensor x = g.placeholder(kFloat64, {4}, "x");
  std::vector<Tensor> out = while_loop([&](const std::vector<Tensor>& v) { return v[0] < 5; },
                                       [&](const std::vector<Tensor>& v) -> std::vector<Tensor> {
                                         return {v[0] + 1, tanh(matmul(w, v[1]) + x)};
                                       },
                                       {zeros({}, kInt64), h0});
  Tensor h = out[1];
  Tensor loss = sum(h * h) + sum(h);
};

TEST_F(SavedControlFlow, RnnWhileLoop) {
  SavedRnn r;
  Session sess(r.g);
  sess.run(r.g.global_variables_initializer());
  const Feeds feeds{{r.h0, f64_sample({4}, 4)}, {r.x, f64_sample({4}, 5)}};
  // It ran five steps: the same as the loop unrolled.
  Tensor hv = f64_sample({4}, 4);
  for (int i = 0; i < 5; ++i) hv = tanh(matmul(sess.run(r.w), hv) + f64_sample({4}, 5));
  const std::string err = nabla::testing::compare(sess.run(r.h, feeds), hv, 1e-12, 1e-12);
  EXPECT_TRUE(err.empty()) << err;
  expect_round_trip(sess, r.g, {r.out[0], r.h, r.loss}, {feeds}, "rnn.nbg");
}

TEST_F(SavedControlFlow, WhileLoopGradient) {
  SavedRnn r;
  std::vector<Tensor> gs = gradients(r.loss, {r.w, r.h0, r.x});
  ASSERT_EQ(r.g.node(value_of(gs[0])->ref.node).kind, NodeKind::WhileGrad);
  Session sess(r.g);
  sess.run(r.g.global_variables_initializer());
  expect_round_trip(sess, r.g, {r.h, gs[0], gs[1], gs[2]}, {{{r.h0, f64_sample({4}, 6)}, {r.x, f64_sample({4}, 7)}}},
                    "rnn_grad.nbg");
}

TEST_F(SavedControlFlow, CondGradient) {
  Graph g;
  Tensor p = g.placeholder(kBool, {}, "p");
  Tensor x = g.placeholder(kFloat64, {2, 2}, "x");
  Tensor w = g.placeholder(kFloat64, {2, 2}, "w");
  Tensor y = cond(
      p, [&] { return tanh(matmul(x, w)); }, [&] { return exp(x) * 0.5; });
  Tensor loss = sum(y * y);
  std::vector<Tensor> gs = gradients(loss, {x, w});
  Session sess(g);
  const Tensor xv = f64_sample({2, 2}, 8), wv = f64_sample({2, 2}, 9);
  expect_round_trip(sess, g, {loss, gs[0], gs[1]},
                    {{{p, bool_scalar(true)}, {x, xv}, {w, wv}}, {{p, bool_scalar(false)}, {x, xv}, {w, wv}}},
                    "cond_grad.nbg");
}

// A loop whose body holds a cond (h <- h * w if sum(h) > 0 else h + w), and
// the loop's gradient, whose body gradient holds the cond's gradient.
TEST_F(SavedControlFlow, CondNestedInALoopAndItsGradient) {
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
  // Two starts: one takes the true branch first, one the false.
  const Tensor hv = abs(f64_sample({3}, 10)) + 0.1;
  expect_round_trip(sess, g, {h, loss, gs[0], gs[1]},
                    {{{w, f64_sample({3}, 11)}, {h0, hv}}, {{w, f64_sample({3}, 11)}, {h0, -hv}}}, "nested.nbg");
}

// The loaded graph is a graph like a built one: gradients() of a loaded loop
// (a WhileGrad over the loaded subgraphs) equal those built before saving.
TEST_F(SavedControlFlow, GradientsOfALoadedLoop) {
  SavedRnn r;
  r.g.set_name(r.loss, "loss");
  std::vector<Tensor> gs = gradients(r.loss, {r.w, r.h0});
  Session sess(r.g);
  sess.run(r.g.global_variables_initializer());
  sess.save(path("rnn.nbg"));
  const Tensor h0v = f64_sample({4}, 12), xv = f64_sample({4}, 13);
  std::vector<Tensor> want = sess.run(gs, {{r.h0, h0v}, {r.x, xv}});

  Graph lg = load(path("rnn.nbg"));
  std::vector<Tensor> lgs = gradients(lg.tensor("loss"), {lg.tensor("w"), lg.tensor("h0")});
  Session ls(lg);
  ls.run(lg.global_variables_initializer());
  std::vector<Tensor> got = ls.run(lgs, {{lg.tensor("h0"), h0v}, {lg.tensor("x"), xv}});
  ASSERT_EQ(got.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) EXPECT_TRUE(same_bits(got[i], want[i])) << got[i] << "\nvs\n" << want[i];
}

TEST_F(SavedControlFlow, NestingUpToTheFormatsLimit) {
  Graph g;
  Tensor p = g.placeholder(kBool, {}, "p");
  Tensor x = g.placeholder(kFloat64, {2}, "x");
  Tensor y = nested_conds(32, p, x);
  Session sess(g);
  const Tensor xv = f64_sample({2}, 14);
  expect_round_trip(sess, g, {y}, {{{p, bool_scalar(true)}, {x, xv}}, {{p, bool_scalar(false)}, {x, xv}}}, "deep.nbg");
  EXPECT_TRUE(same_bits(sess.run(y, {{p, bool_scalar(true)}, {x, xv}}), xv * 2.0 + 32.0));

  // One level more: neither save writes it (no reader would load it).
  Graph h;
  Tensor q = h.placeholder(kBool, {}, "p");
  nested_conds(33, q, h.placeholder(kFloat64, {2}, "x"));
  expect_error(error_of([&] { save(h, path("deeper.nbg")); }),
               {"graph::save", "deeper.nbg", "nest 33 levels deep", "at most 32"});
  expect_error(error_of([&] { Session(h).save(path("deeper.nbg")); }), {"Session::save", "nest 33 levels deep"});
  EXPECT_FALSE(fs::exists(path("deeper.nbg")));
}

}  // namespace
}  // namespace nabla::graph

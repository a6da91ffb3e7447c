// Saved graphs (.nbg): a graph with every kind of node and attribute survives
// save + load field for field (doubles and tensor bytes bit for bit), runs to
// the same bits, keeps its names and source lines, and a Session saved after
// training loads with the trained variables. Corrupt files: serialize_errors_test.cpp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>

#include "nabla/nabla.h"
#include "tests/support/error_message.h"
#include "tests/support/same_bits.h"

namespace nabla::graph {
namespace {

namespace fs = std::filesystem;
using nabla::testing::error_of;
using nabla::testing::expect_error;

class SavedGraph : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nabla_saved_graph_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

uint64_t bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

// Same alternative and the same value; doubles compared by their bits.
bool same_attr(const AttrValue& a, const AttrValue& b) {
  if (a.index() != b.index()) return false;
  if (auto* x = std::get_if<double>(&a)) return bits(*x) == bits(std::get<double>(b));
  if (auto* x = std::get_if<Scalar>(&a)) {
    const Scalar& y = std::get<Scalar>(b);
    return x->kind() == y.kind() && x->to_int() == y.to_int() && bits(x->to_double()) == bits(y.to_double());
  }
  if (auto* x = std::get_if<Shape>(&a)) return *x == std::get<Shape>(b);
  if (auto* x = std::get_if<int64_t>(&a)) return *x == std::get<int64_t>(b);
  if (auto* x = std::get_if<bool>(&a)) return *x == std::get<bool>(b);
  if (auto* x = std::get_if<DType>(&a)) return *x == std::get<DType>(b);
  if (auto* x = std::get_if<std::string>(&a)) return *x == std::get<std::string>(b);
  return true;  // monostate
}

// Same dtype, shape and bytes.
using nabla::testing::same_bits;

void expect_same_nodes(const Graph& a, const Graph& b) {
  ASSERT_EQ(a.num_nodes(), b.num_nodes());
  for (int i = 0; i < a.num_nodes(); ++i) {
    const Node& x = a.node(i);
    const Node& y = b.node(i);
    SCOPED_TRACE("node " + std::to_string(i) + " '" + x.name + "'");
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.op, y.op);  // the same table entry, found by name
    ASSERT_EQ(x.attrs.size(), y.attrs.size());
    for (std::size_t k = 0; k < x.attrs.size(); ++k) EXPECT_TRUE(same_attr(x.attrs[k], y.attrs[k])) << "attr " << k;
    ASSERT_EQ(x.inputs.size(), y.inputs.size());
    for (std::size_t k = 0; k < x.inputs.size(); ++k) {
      EXPECT_EQ(x.inputs[k].node, y.inputs[k].node);
      EXPECT_EQ(x.inputs[k].output, y.inputs[k].output);
    }
    EXPECT_EQ(x.control_inputs, y.control_inputs);
    ASSERT_EQ(x.metas.size(), y.metas.size());
    for (std::size_t k = 0; k < x.metas.size(); ++k) {
      EXPECT_EQ(x.metas[k].sizes, y.metas[k].sizes);
      EXPECT_EQ(x.metas[k].dtype, y.metas[k].dtype);
    }
    if (x.loc_known) {
      ASSERT_TRUE(y.stored_loc.has_value());
      EXPECT_EQ(y.stored_loc->file, x.loc.file_name());
      EXPECT_EQ(y.stored_loc->line, x.loc.line());
    } else {
      EXPECT_FALSE(y.stored_loc.has_value());
    }
    EXPECT_EQ(describe(x), describe(y));
    EXPECT_EQ(x.trainable, y.trainable);
    EXPECT_EQ(x.target, y.target);
    EXPECT_EQ(x.variables, y.variables);
    EXPECT_EQ(x.value.defined(), y.value.defined());
    if (x.value.defined()) EXPECT_TRUE(same_bits(x.value, y.value));
  }
}

// A graph with every node kind and every attribute alternative.
struct EveryKindGraph {
  Graph g;
  Tensor x, kernel, bias, y, amax_idx, loss, step, init, both;
};

EveryKindGraph make_every_kind_graph() {
  EveryKindGraph m;
  Graph& g = m.g;
  LocationScope at;  // op nodes record this line
  m.x = g.placeholder(kFloat32, {4, 3}, "x");
  {
    auto scope = g.name_scope("dense");
    m.kernel = g.variable(randn({3, 5}), "kernel");
    m.bias = g.variable(full({5}, 0.1), "bias", /*trainable=*/false);
  }
  Tensor h = leaky_relu(matmul(m.x, m.kernel) + m.bias, 0.1);  // double attr (not exact in binary)
  h = clamp(h, Scalar(-2.5), Scalar(int64_t{3}));               // float and int scalars
  h = pad(h, {1, 1}, "reflect");                                 // a string attr
  h = h.to(kFloat64);                                            // a dtype attr
  // Constants with bits that must survive: -0.0, a subnormal, a NaN payload.
  double specials[3] = {-0.0, std::numeric_limits<double>::denorm_min(), 1.0 / 3.0};
  Tensor c = g.constant(from_blob(specials, {3}, kFloat64), "specials");
  uint64_t nan_bits = 0x7ff8000000000123ull;
  double nan_payload;
  std::memcpy(&nan_payload, &nan_bits, 8);
  g.constant(from_blob(&nan_payload, {1}, kFloat64), "nan_payload");
  Tensor s = sum(h, {1}, /*keepdim=*/true);                      // Shape and bool attrs
  auto [vals, idx] = max(h, 1);                                  // two outputs
  m.amax_idx = idx;
  m.y = s.squeeze(1) + vals + c.sum();
  m.y = where(m.y > 0.0, m.y, zeros({}, kFloat64));              // bool tensors inside
  m.loss = m.y.mean();
  m.step = assign_sub(m.kernel, matmul(m.x.t(), ones({4, 5})) * 0.01);
  m.both = group({m.step, assign_add(m.bias, full({5}, 1.0))});
  m.init = g.global_variables_initializer();
  // A control input (no data flows; it must be an earlier node).
  g.data()->nodes[static_cast<std::size_t>(value_of(m.loss)->ref.node)].control_inputs.push_back(
      value_of(c)->ref.node);
  return m;
}

TEST_F(SavedGraph, EveryNodeFieldSurvivesSaveAndLoad) {
  EveryKindGraph m = make_every_kind_graph();
  save(m.g, path("m.nbg"));
  Graph loaded = load(path("m.nbg"));
  expect_same_nodes(m.g, loaded);
  // Names are taken: building on the loaded graph gets fresh ones.
  Tensor extra = loaded.placeholder(kFloat32, {1}, "x");
  EXPECT_EQ(loaded.node_of(extra).name, "x_1");
  // Saving the loaded graph again gives the same bytes.
  Graph again = load(path("m.nbg"));
  save(again, path("m2.nbg"));
  std::ifstream a(path("m.nbg"), std::ios::binary), b(path("m2.nbg"), std::ios::binary);
  std::string sa((std::istreambuf_iterator<char>(a)), std::istreambuf_iterator<char>());
  std::string sb((std::istreambuf_iterator<char>(b)), std::istreambuf_iterator<char>());
  EXPECT_GT(sa.size(), 44u);
  EXPECT_EQ(sa, sb);
}

TEST_F(SavedGraph, LoadedGraphRunsToTheSameBits) {
  EveryKindGraph m = make_every_kind_graph();
  save(m.g, path("m.nbg"));
  Tensor xv = randn({4, 3});

  Session built(m.g);
  built.run(m.init);
  std::vector<Tensor> want = built.run({m.y, m.amax_idx, m.loss}, {{m.x, xv}});
  built.run(m.both, {{m.x, xv}});
  Tensor want_kernel = built.variable_value(m.kernel);

  // graph::load: variables start uninitialized, the initializer gives them the saved values.
  Graph g = load(path("m.nbg"));
  Session fresh(g);
  EXPECT_NE(error_of([&] { fresh.run({"y_pred_missing"}, {}); }), nabla::testing::kNoError);
  std::string unset = error_of([&] { fresh.run(g.tensor("dense/kernel")); });
  expect_error(unset, {"dense/kernel", "before it is initialized", "serialize_test.cpp:"});
  fresh.run(g.tensor("init"));
  const std::string y_name = m.g.node_of(m.y).name, idx_name = m.g.node_of(m.amax_idx).name;
  std::vector<Tensor> got = fresh.run({y_name, idx_name + ":1", m.g.node_of(m.loss).name}, {{"x", xv}});
  ASSERT_EQ(got.size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(same_bits(got[i], want[i])) << i;
  EXPECT_EQ(got[1].dtype(), kInt64);
  fresh.run({m.g.node_of(m.both).name}, {{"x", xv}});
  EXPECT_TRUE(same_bits(fresh.run(g.tensor("dense/kernel")), want_kernel));

  // Session::load: ready to run, no initializer needed.
  Session ready = Session::load(path("m.nbg"));
  EXPECT_TRUE(same_bits(ready.run({y_name}, {{"x", xv}})[0], want[0]));
}

TEST_F(SavedGraph, SessionSaveKeepsTheTrainedVariables) {
  EveryKindGraph m = make_every_kind_graph();
  Session sess(m.g);
  sess.run(m.init);
  Tensor xv = randn({4, 3});
  for (int i = 0; i < 3; ++i) sess.run(m.both, {{m.x, xv}});
  Tensor trained = sess.variable_value(m.kernel);
  Tensor trained_bias = sess.variable_value(m.bias);
  ASSERT_FALSE(same_bits(trained, m.g.node_of(m.kernel).value));
  Tensor want = sess.run(m.y, {{m.x, xv}});
  sess.save(path("trained.nbg"));

  Session loaded = Session::load(path("trained.nbg"));
  Graph lg = loaded.graph();
  EXPECT_TRUE(same_bits(loaded.variable_value(lg.tensor("dense/kernel")), trained));
  EXPECT_TRUE(same_bits(loaded.variable_value(lg.tensor("dense/bias")), trained_bias));
  EXPECT_FALSE(lg.node_of(lg.tensor("dense/bias")).trainable);
  EXPECT_TRUE(same_bits(loaded.run(lg.tensor(m.g.node_of(m.y).name), {{lg.tensor("x"), xv}}), want));
  // The free-function form writes the same file.
  save(sess, path("trained2.nbg"));
  EXPECT_EQ(fs::file_size(path("trained.nbg")), fs::file_size(path("trained2.nbg")));
  // The original graph file is unchanged: its variables are the initial values.
  save(m.g, path("initial.nbg"));
  Session initial = Session::load(path("initial.nbg"));
  EXPECT_TRUE(same_bits(initial.variable_value(initial.graph().tensor("dense/kernel")), m.g.node_of(m.kernel).value));
}

TEST_F(SavedGraph, SessionSaveOfAnUninitializedVariableSavesItsInitialValue) {
  Graph g;
  Tensor w = g.variable(full({2}, 7.0), "w");
  Tensor y = w * 2.0;
  Session sess(g);
  sess.save(path("u.nbg"));
  Session loaded = Session::load(path("u.nbg"));
  EXPECT_EQ(loaded.run({g.node_of(y).name})[0].to_vector<float>(), (std::vector<float>{14, 14}));
}

TEST_F(SavedGraph, LoadedNodesNameTheirSourceLineInErrors) {
  Graph g;
  const int line = __LINE__ + 1;
  Tensor x = g.placeholder(kFloat32, {2, 3}, "images");
  Tensor y = relu(x);
  save(g, path("lines.nbg"));
  Session sess = Session::load(path("lines.nbg"));
  std::string msg = error_of([&] { sess.run({"relu"}, {{"images", zeros({3, 2})}}); });
  expect_error(msg, {"placeholder 'images' (created at ", ("serialize_test.cpp:" + std::to_string(line)).c_str(),
                     "expects shape [2, 3] but was fed shape [3, 2]"});
  (void)y;
}

TEST_F(SavedGraph, NameLookup) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {2, 3}, "x");
  auto [v, i] = max(x, 1);
  EXPECT_EQ(g.node_of(g.tensor("x")).name, "x");
  const std::string name = g.node_of(v).name;
  Tensor second = g.tensor(name + ":1");
  EXPECT_EQ(value_of(second)->ref.output, 1);
  EXPECT_EQ(second.dtype(), kInt64);
  EXPECT_EQ(value_of(g.tensor(name + ":0"))->ref.output, 0);
  expect_error(error_of([&] { g.tensor("nope"); }), {"Graph::tensor: no node called 'nope'", "placeholders first", "x"});
  expect_error(error_of([&] { g.tensor(name + ":2"); }), {"asks for output 2", "which has 2 output(s)"});
  expect_error(error_of([&] { g.tensor("x:1"); }), {"asks for output 1", "'x'", "1 output(s)"});
  (void)i;
}

TEST_F(SavedGraph, AVariableWithoutAConcreteValueCannotBeSaved) {
  Graph g;
  Tensor w = g.variable(ones({2}), "w");
  g.data()->nodes[static_cast<std::size_t>(value_of(w)->ref.node)].value = Tensor();
  expect_error(error_of([&] { save(g, path("none.nbg")); }),
               {"graph::save", "none.nbg", "'w'", "no concrete value", "save a Session"});
  EXPECT_FALSE(fs::exists(path("none.nbg")));
}

TEST_F(SavedGraph, AFailedSaveLeavesTheOldFile) {
  Graph g;
  Tensor w = g.variable(ones({2}), "w");
  save(g, path("keep.nbg"));
  const auto size = fs::file_size(path("keep.nbg"));
  g.data()->nodes[static_cast<std::size_t>(value_of(w)->ref.node)].value = Tensor();
  EXPECT_THROW(save(g, path("keep.nbg")), Error);
  EXPECT_EQ(fs::file_size(path("keep.nbg")), size);
  EXPECT_NO_THROW(load(path("keep.nbg")));
  for (const auto& e : fs::directory_iterator(dir_)) EXPECT_EQ(e.path().filename(), "keep.nbg");  // no temp left
}

}  // namespace
}  // namespace nabla::graph

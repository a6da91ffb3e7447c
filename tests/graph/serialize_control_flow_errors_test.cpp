// Saved control-flow graphs (format 1.1) that must not load: truncation,
// bit flips in the subgraph tables with the checksums fixed, and graphs whose
// subgraphs disagree with their owner node (written with detail::write_nbg
// from graphs broken on purpose): out-of-range params and results, unbound
// placeholders, wrong counts, dtypes and shapes, kinds a subgraph cannot
// hold, nesting beyond the format's limit. Each raises a nabla::Error naming
// the file and the field. And the other way round: a 1.0 file still loads.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "nabla/nabla.h"
#include "support/control_flow_inputs.h"
#include "tests/support/error_message.h"
#include "tests/support/nbg_bytes.h"
#include "tests/support/nbg_file_test.h"

namespace nabla::graph {
namespace {

using nabla::testing::error_of;
using nabla::testing::expect_error;
using nabla::testing::fix_checksums;
using nabla::testing::get_le;
using nabla::testing::kNbgHeader;
using nabla::testing::kNoError;
using nabla::testing::nested_conds;
using nabla::testing::put_le;
using nabla::testing::read_bytes;
using nabla::testing::write_bytes;

constexpr uint16_t kSubgraphsTag = 0x8000 | 13;  // docs/nbg-format.md

// Where a field's value lies in a file: its length at `len_at`, its bytes at
// [begin, begin + size).
struct FieldSpan {
  std::size_t len_at = 0, begin = 0, size = 0;
};

// The first top-level field with `tag` (walking the node table's records).
FieldSpan find_field(const std::string& b, uint16_t tag) {
  std::size_t pos = kNbgHeader;
  const uint64_t nodes = get_le(b, pos, 4);
  pos += 4;
  for (uint64_t n = 0; n < nodes; ++n) {
    const uint64_t fields = get_le(b, pos, 4);
    pos += 4;
    for (uint64_t f = 0; f < fields; ++f) {
      const uint64_t t = get_le(b, pos, 2), len = get_le(b, pos + 2, 4);
      if (t == tag) return {pos + 2, pos + 6, static_cast<std::size_t>(len)};
      pos += 6 + len;
    }
  }
  ADD_FAILURE() << "no field with tag " << tag;
  return {};
}

class SavedControlFlowErrors : public nabla::testing::NbgFileTest {
 protected:
  void SetUp() override {
    // A loop whose body holds a cond, and the loop's gradient: every kind of
    // control-flow node, subgraphs two levels deep.
    Graph g;
    Tensor w = g.placeholder(kFloat32, {3}, "w");
    Tensor h0 = g.placeholder(kFloat32, {3}, "h0");
    Tensor h = while_loop([&](const std::vector<Tensor>& v) { return v[0] < 3; },
                          [&](const std::vector<Tensor>& v) -> std::vector<Tensor> {
                            Tensor next = cond(
                                sum(v[1]) > 0.0, [&] { return v[1] * w; }, [&] { return v[1] + w; });
                            return {v[0] + 1, next};
                          },
                          {zeros({}, kInt64), h0})[1];
    gradients(sum(h), {w});
    save_good("nabla_saved_control_flow_errors", g);
  }
};

TEST_F(SavedControlFlowErrors, TheGoodFileLoadsAsVersion1_1) {
  EXPECT_EQ(error_of([&] { load(good_); }), kNoError);
  EXPECT_EQ(get_le(bytes_, 8, 2), 1u);
  EXPECT_EQ(get_le(bytes_, 10, 2), 1u);
}

TEST_F(SavedControlFlowErrors, TruncatedAtEveryLength) {
  for (std::size_t n = 1; n < bytes_.size(); ++n) {
    std::string msg = load_error(bytes_.substr(0, n));
    ASSERT_NE(msg.find("bad.nbg"), std::string::npos) << n << ": " << msg;
    ASSERT_NE(msg.find("is truncated"), std::string::npos) << n << ": " << msg;
  }
}

// The subgraphs field cut short, with its length, the table size and the
// checksums made to agree: the nested reader runs out of bytes and says where.
TEST_F(SavedControlFlowErrors, SubgraphTablesCutShort) {
  const FieldSpan f = find_field(bytes_, kSubgraphsTag);
  ASSERT_GT(f.size, 100u);
  for (std::size_t cut = 1; cut < f.size; cut += 7) {
    std::string b = bytes_;
    b.erase(f.begin + f.size - cut, cut);
    put_le(b, f.len_at, f.size - cut, 4);
    put_le(b, 16, get_le(b, 16, 8) - cut, 8);
    fix_checksums(b);
    std::string msg = load_error(b);
    ASSERT_NE(msg.find("bad.nbg"), std::string::npos) << cut << ": " << msg;
    ASSERT_NE(msg.find("field 'subgraphs'"), std::string::npos) << cut << ": " << msg;
    // Out of bytes for a field, or for the items a count announces.
    ASSERT_TRUE(msg.find("truncated or corrupt") != std::string::npos || msg.find("bytes but only") != std::string::npos)
        << cut << ": " << msg;
  }
}

// Every byte of the subgraph tables with a bit flipped and valid checksums:
// the file loads (a byte of a name, a region or a source path: text is much
// of these tables) or raises an Error naming the file and the subgraph; never
// a crash.
TEST_F(SavedControlFlowErrors, BitFlipsInTheSubgraphTablesWithValidChecksums) {
  const FieldSpan f = find_field(bytes_, kSubgraphsTag);
  int refused = 0, loaded = 0, named_subgraph = 0;
  for (std::size_t i = f.begin; i < f.begin + f.size; ++i) {
    std::string b = bytes_;
    b[i] = static_cast<char>(b[i] ^ (1 << ((i * 5) % 8)));
    fix_checksums(b);
    write_bytes(path("edited.nbg"), b);
    try {
      load(path("edited.nbg"));
      ++loaded;
    } catch (const Error& e) {
      ++refused;
      const std::string msg = e.what();
      ASSERT_NE(msg.find("edited.nbg"), std::string::npos) << msg;
      if (msg.find("subgraph") != std::string::npos) ++named_subgraph;
    }
  }
  EXPECT_GT(3 * refused, refused + loaded);  // over a third break the structure
  EXPECT_EQ(named_subgraph, refused);  // the subgraph is named, however deep the error
}

TEST_F(SavedControlFlowErrors, AControlFlowFileClaimingVersion1_0IsCorrupt) {
  std::string b = bytes_;
  put_le(b, 10, 0, 2);
  fix_checksums(b);
  expect_error(load_error(b), {"bad.nbg", "field 'subgraphs' is new in format 1.1 but the file says version 1.0",
                               "corrupt"});
}

// A version 1.0 file, byte for byte as the 1.0 writer wrote it (checked against
// it when 1.1 was made; docs/nbg-format.md): x, a
// float32[2] placeholder; c, the constant [1.5, 0.5]; y = add(x, c). Source
// lines are left out to keep it short.
constexpr unsigned char kVersion1_0File[] = {
    0x89, 0x4e, 0x42, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0xcf, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0xe3, 0x7b, 0xa2, 0x5b, 0xb7, 0xc3, 0xdd, 0xe1, 0xe1, 0xbb, 0xfb, 0x82, 0x03, 0x00, 0x00, 0x00,
    0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x01, 0x00, 0x00,
    0x00, 0x78, 0x07, 0x00, 0x11, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x06, 0x01, 0x00, 0x00,
    0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01,
    0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00, 0x63, 0x07, 0x00, 0x11, 0x00, 0x00,
    0x00, 0x01, 0x00, 0x00, 0x00, 0x06, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x09, 0x00, 0x1d, 0x00, 0x00, 0x00, 0x06, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
    0x02, 0x00, 0x01, 0x00, 0x00, 0x00, 0x79, 0x03, 0x00, 0x03, 0x00, 0x00, 0x00, 0x61, 0x64, 0x64,
    0x04, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x14, 0x00, 0x00, 0x00,
    0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x07, 0x00, 0x11, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x06, 0x01,
    0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc0, 0x3f, 0x00,
    0x00, 0x00, 0x3f,
};

// It still loads and runs; written again, it differs only in the version
// (and so the header checksum): 1.1 adds nothing to graphs without control flow.
TEST_F(SavedControlFlowErrors, AVersion1_0FileStillLoads) {
  const std::string v10(reinterpret_cast<const char*>(kVersion1_0File), sizeof kVersion1_0File);
  ASSERT_EQ(get_le(v10, 10, 2), 0u);
  write_bytes(path("v10.nbg"), v10);
  Session s = Session::load(path("v10.nbg"));
  Tensor y = s.run({"y"}, {{"x", tensor(std::vector<float>{-1.0f, 2.0f})}})[0];
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{0.5f, 2.5f}));

  save(s.graph(), path("v11.nbg"));
  const std::string v11 = read_bytes(path("v11.nbg"));
  ASSERT_EQ(v11.size(), v10.size());
  EXPECT_EQ(get_le(v11, 10, 2), 1u);
  EXPECT_EQ(v11.substr(12, 28), v10.substr(12, 28));  // flags, sizes, table and data checksums
  EXPECT_EQ(v11.substr(kNbgHeader), v10.substr(kNbgHeader));
}

// ---- valid checksums, invalid subgraphs --------------------------------

class BrokenControlFlow : public SavedControlFlowErrors {
 protected:
  std::string error_loading(const Graph& g) {
    detail::write_nbg(*g.data(), {}, path("broken.nbg"));
    return error_of([&] { load(path("broken.nbg")); });
  }
  static Node& node(const Graph& g, const Tensor& t) {
    return g.data()->nodes[static_cast<std::size_t>(value_of(t)->ref.node)];
  }
};

// x -> cond(p, relu(x), ones(2)): the true branch is {placeholder x, relu},
// bound by params {-1 (pred), 0 (x)}; the false branch is {constant}.
struct SmallCond {
  Graph g;
  Tensor p = g.placeholder(kBool, {}, "p");
  Tensor x = g.placeholder(kFloat32, {2}, "x");
  Tensor y = cond(
      p, [&] { return relu(x); }, [&] { return ones({2}); });
};

TEST_F(BrokenControlFlow, ParamsOutOfRangeUnboundOrTwice) {
  SmallCond c;
  Subgraph& t = BrokenControlFlow::node(c.g, c.y).subgraphs[0];
  ASSERT_EQ(t.params, (std::vector<int>{-1, 0}));
  t.params[1] = 9;
  expect_error(error_loading(c.g), {"broken.nbg", "node 2 field 'subgraphs': subgraph 0", "param 1 names node 9",
                                    "expected a placeholder of the subgraph's 2 nodes"});
  t.params[1] = 1;  // the relu
  expect_error(error_loading(c.g), {"field 'subgraphs': subgraph 0", "param 1 names node 1"});
  t.params = {0, 0};
  expect_error(error_loading(c.g), {"field 'subgraphs': subgraph 0", "param 1 binds placeholder", "again"});
  t.params = {-1, -1};
  expect_error(error_loading(c.g), {"field 'subgraphs': subgraph 0", "(node 0) is bound by no param"});
  t.params = {-1, 0, -1};
  expect_error(error_loading(c.g), {"node 2 'cond' (cond)", "subgraph 0 (the true branch) has 3 params; expected 2"});
}

TEST_F(BrokenControlFlow, ResultsOutOfRange) {
  SmallCond c;
  Subgraph& t = BrokenControlFlow::node(c.g, c.y).subgraphs[0];
  t.results[0].node = 5;
  expect_error(error_loading(c.g), {"broken.nbg", "field 'subgraphs': subgraph 0", "result 0 refers to node 5",
                                    "the subgraph has 2 nodes"});
  t.results[0] = {1, 1};
  expect_error(error_loading(c.g), {"field 'subgraphs': subgraph 0", "result 0 is output 1 of node", "1 output(s)"});
  t.results = {};
  expect_error(error_loading(c.g), {"node 2 'cond' (cond)", "subgraph 0 (the true branch) has 0 results; expected 1"});
}

TEST_F(BrokenControlFlow, CondAgreesWithItsBranches) {
  SmallCond c;
  Node& n = BrokenControlFlow::node(c.g, c.y);
  n.metas[0].sizes = Shape{5};
  expect_error(error_loading(c.g), {"'cond' (cond)", "result 0 of subgraph 0 (the true branch) is float32[2]",
                                    "expected float32[5]"});
  n.metas[0].sizes = Shape{2};
  n.inputs[0] = value_of(c.x)->ref;
  expect_error(error_loading(c.g), {"'cond' (cond)", "input 0 (the predicate) must be a scalar bool, got float32[2]"});
  n.inputs[0] = value_of(c.p)->ref;
  Tensor z = c.g.placeholder(kFloat32, {3}, "z");
  n.inputs[1] = value_of(z)->ref;  // a later node, and not what the branch's placeholder is
  expect_error(error_loading(c.g), {"node 2 field 'inputs'", "an input refers to node 3", "earlier node"});
  std::swap(c.g.data()->nodes[2], c.g.data()->nodes[3]);  // z first, then the cond
  c.g.data()->nodes[3].inputs[1] = {2, 0};
  expect_error(error_loading(c.g), {"node 3 'cond' (cond)", "subgraph 0 (the true branch) binds input 1, float32[3]",
                                    "which is float32[2]"});
  c.g.data()->nodes[3].subgraphs.pop_back();
  expect_error(error_loading(c.g), {"node 3 'cond' (cond)", "field 'subgraphs' holds 1 subgraphs; a cond node has 2"});
}

TEST_F(BrokenControlFlow, StateCannotBeInsideASubgraph) {
  SmallCond c;
  Node& k = BrokenControlFlow::node(c.g, c.y).subgraphs[1].graph->nodes[0];
  ASSERT_EQ(k.kind, NodeKind::Constant);
  k.kind = NodeKind::Variable;
  expect_error(error_loading(c.g), {"broken.nbg", "field 'subgraphs': subgraph 1: node 0",
                                    "a variable node cannot be inside a subgraph"});
}

TEST_F(BrokenControlFlow, LoopAttributesAndBody) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {2}, "x");
  std::vector<Tensor> out = while_loop([&](const std::vector<Tensor>& v) { return v[0] < 3; },
                                       [&](const std::vector<Tensor>& v) -> std::vector<Tensor> {
                                         return {v[0] + 1, v[1] * 2.0};
                                       },
                                       {zeros({}, kInt64), x});
  Node& n = BrokenControlFlow::node(g, out[0]);
  ASSERT_EQ(n.kind, NodeKind::While);
  n.attrs = Attrs{int64_t{-5}};
  expect_error(error_loading(g), {"broken.nbg", "'while' (while)", "maximum_iterations is -5"});
  n.attrs = Attrs{Shape{1}};
  expect_error(error_loading(g), {"'while' (while)", "attribute 0 ('maximum_iterations') must be an int"});
  n.attrs = Attrs{int64_t{-1}};
  std::swap(n.subgraphs[1].results[0], n.subgraphs[1].results[1]);
  expect_error(error_loading(g), {"'while' (while)", "result 0 of subgraph 1 (the body) is float32[2]",
                                  "expected int64[]"});
  std::swap(n.subgraphs[1].results[0], n.subgraphs[1].results[1]);
  n.subgraphs[0].results.push_back(n.subgraphs[0].results[0]);
  expect_error(error_loading(g), {"'while' (while)", "subgraph 0 (the condition) has 2 results; expected 1"});
}

TEST_F(BrokenControlFlow, WhileGradAttributes) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {2}, "x");
  Tensor h = while_loop([&](const std::vector<Tensor>& v) { return v[0] < 3; },
                        [&](const std::vector<Tensor>& v) -> std::vector<Tensor> {
                          return {v[0] + 1, v[1] * 2.0};
                        },
                        {zeros({}, kInt64), x})[1];
  Tensor dx = gradients(sum(h), {x})[0];
  Node& n = BrokenControlFlow::node(g, dx);
  ASSERT_EQ(n.kind, NodeKind::WhileGrad);
  ASSERT_EQ(n.attrs.size(), 4u);
  const Attrs good = n.attrs;
  auto with = [&](std::size_t k, AttrValue v) {
    Attrs a;
    for (std::size_t i = 0; i < good.size(); ++i) a.push_back(i == k ? v : good[i]);
    return a;
  };
  n.attrs = with(2, Shape{7});
  expect_error(error_loading(g), {"broken.nbg", "(while_grad)", "attribute 'float_vars' holds 7 at position 0",
                                  "expected increasing indices in 0..1"});
  n.attrs = with(2, Shape{0});  // the int64 counter
  expect_error(error_loading(g), {"(while_grad)", "loop variable 0 is listed as floating but is int64[]"});
  n.attrs = with(1, int64_t{1000});
  expect_error(error_loading(g), {"(while_grad)", "1000 loop variables with 1 floating ones do not fit"});
  n.attrs = good;
  n.subgraphs[2].params.push_back(-1);
  expect_error(error_loading(g), {"(while_grad)", "subgraph 2 (the body's gradient) has 4 params; expected 3"});
}

TEST_F(BrokenControlFlow, NestingBeyondTheLimit) {
  Graph g;
  Tensor p = g.placeholder(kBool, {}, "p");
  nested_conds(33, p, g.placeholder(kFloat32, {2}, "x"));
  expect_error(error_loading(g), {"broken.nbg", "field 'subgraphs'", "subgraphs nested more than 32 levels deep"});
}

}  // namespace
}  // namespace nabla::graph

// Saved graphs that must not load: wrong magic, truncation at every length, a
// bit flipped at every byte, other versions, unknown fields, and files whose
// checksums are right but whose content is not a valid graph (written with
// detail::write_nbg from a graph broken on purpose). Each raises a
// nabla::Error that names the file and what is wrong.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "nabla/nabla.h"
#include "tests/support/error_message.h"
#include "tests/support/nbg_bytes.h"
#include "tests/support/nbg_file_test.h"

namespace nabla::graph {
namespace {

using nabla::testing::error_of;
using nabla::testing::expect_error;
using nabla::testing::kNoError;

using nabla::testing::fix_checksums;
using nabla::testing::get_le;
using nabla::testing::put_le;
using nabla::testing::read_bytes;
using nabla::testing::write_bytes;
constexpr std::size_t kHeader = nabla::testing::kNbgHeader;

class SavedGraphErrors : public nabla::testing::NbgFileTest {
 protected:
  void SetUp() override {
    // A small trained-model-like graph: placeholder, variables, ops, an update, an initializer.
    Graph g;
    Tensor x = g.placeholder(kFloat32, {2, 3}, "x");
    Tensor w = g.variable(randn({3, 4}), "w");
    Tensor b = g.variable(zeros({4}), "b");
    Tensor y = relu(matmul(x, w) + b);
    assign_sub(w, full({3, 4}, 0.5));
    g.global_variables_initializer();
    (void)y;
    save_good("nabla_saved_graph_errors", g);
  }
};

TEST_F(SavedGraphErrors, TheGoodFileLoads) {
  EXPECT_EQ(error_of([&] { load(good_); }), kNoError);
  EXPECT_EQ(bytes_.substr(0, 8), std::string("\x89NBG\r\n\x1a\n", 8));
  EXPECT_EQ(get_le(bytes_, 8, 2), 1u);  // major
  EXPECT_EQ(get_le(bytes_, 10, 2), 1u);  // minor
  EXPECT_EQ(kHeader + get_le(bytes_, 16, 8) + get_le(bytes_, 24, 8), bytes_.size());
}

TEST_F(SavedGraphErrors, MissingFileOrWrongMagic) {
  expect_error(error_of([&] { load(path("absent.nbg")); }), {"graph::load", "absent.nbg", "cannot open the file"});
  expect_error(load_error("hello, world\n", "text.nbg"), {"text.nbg", "is not a .nbg saved graph", "magic"});
  expect_error(load_error("", "empty.nbg"), {"empty.nbg", "is not a .nbg saved graph"});
  // A safetensors file is not a saved graph either.
  io::save_safetensors(path("t.safetensors"), {{"a", ones({2})}});
  expect_error(error_of([&] { load(path("t.safetensors")); }), {"t.safetensors", "is not a .nbg saved graph"});
}

TEST_F(SavedGraphErrors, TruncatedAtEveryLength) {
  for (std::size_t n = 1; n < bytes_.size(); ++n) {
    std::string msg = load_error(bytes_.substr(0, n));
    ASSERT_NE(msg.find("bad.nbg"), std::string::npos) << n << ": " << msg;
    ASSERT_NE(msg.find("is truncated"), std::string::npos) << n << ": " << msg;
  }
}

TEST_F(SavedGraphErrors, ABitFlippedAnywhereIsCaught) {
  for (std::size_t i = 0; i < bytes_.size(); ++i) {
    std::string b = bytes_;
    b[i] = static_cast<char>(b[i] ^ (1 << (i % 8)));
    std::string msg = load_error(b);
    ASSERT_NE(msg, kNoError) << "flip at byte " << i << " went unnoticed";
    ASSERT_NE(msg.find("bad.nbg"), std::string::npos) << i << ": " << msg;
  }
  // Which check catches it depends on where it is.
  const std::size_t table = get_le(bytes_, 16, 8);
  auto flip = [&](std::size_t i) {
    std::string b = bytes_;
    b[i] = static_cast<char>(b[i] ^ 1);
    return load_error(b);
  };
  expect_error(flip(0), {"is not a .nbg saved graph"});
  expect_error(flip(17), {"the header checksum does not match"});
  expect_error(flip(kHeader + 5), {"the node table's checksum does not match"});
  expect_error(flip(kHeader + table + 3), {"the data section's checksum does not match"});
  expect_error(flip(bytes_.size() - 1), {"the data section's checksum does not match"});
}

// Checksums only catch accidents: a file edited with its checksums fixed
// must still never crash the reader. Every bit of the node table, flipped
// with valid checksums, either loads (a name byte, say) or raises an Error
// (one bit per byte, a different one for consecutive bytes, to keep it quick).
TEST_F(SavedGraphErrors, EveryTableBitFlippedWithValidChecksumsLoadsOrRaises) {
  const std::size_t table = get_le(bytes_, 16, 8);
  int refused = 0, loaded = 0;
  for (std::size_t i = kHeader; i < kHeader + table; ++i) {
    for (int bit : {static_cast<int>((i * 3) % 8)}) {
      std::string b = bytes_;
      b[i] = static_cast<char>(b[i] ^ (1 << bit));
      fix_checksums(b);
      write_bytes(path("edited.nbg"), b);
      try {
        load(path("edited.nbg"));
        ++loaded;
      } catch (const Error& e) {
        ++refused;
        ASSERT_NE(std::string(e.what()).find("edited.nbg"), std::string::npos) << e.what();
      }
    }
  }
  EXPECT_GT(refused, loaded);  // most edits break the structure
}

TEST_F(SavedGraphErrors, TrailingBytes) {
  expect_error(load_error(bytes_ + "xyz"), {"bad.nbg", "3 unexpected bytes after the data section"});
}

TEST_F(SavedGraphErrors, OtherVersions) {
  std::string b = bytes_;
  put_le(b, 8, 2, 2);
  fix_checksums(b);
  expect_error(load_error(b), {"bad.nbg", "format version 2.1 is newer than what this nabla reads (version 1.x, up to 1.3)"});
  put_le(b, 8, 0, 2);
  fix_checksums(b);
  expect_error(load_error(b), {"format version 0.1 is not what this nabla reads"});
  // A newer minor version without new fields reads fine.
  b = bytes_;
  put_le(b, 10, 7, 2);
  fix_checksums(b);
  EXPECT_EQ(load_error(b), kNoError);
  // Header flags are reserved.
  b = bytes_;
  put_le(b, 12, 4, 4);
  fix_checksums(b);
  expect_error(load_error(b), {"unknown header flags 0x4"});
}

// Inserts field (tag, payload) at the front of node 0's record.
std::string with_extra_field(std::string b, uint16_t tag, const std::string& payload, uint16_t minor) {
  const std::size_t node0 = kHeader + 4;  // after the node count
  std::string field(6, '\0');
  put_le(field, 0, tag, 2);
  put_le(field, 2, payload.size(), 4);
  field += payload;
  put_le(b, node0, get_le(b, node0, 4) + 1, 4);  // one more field
  b.insert(node0 + 4, field);
  put_le(b, 16, get_le(b, 16, 8) + field.size(), 8);
  put_le(b, 10, minor, 2);
  fix_checksums(b);
  return b;
}

TEST_F(SavedGraphErrors, UnknownFields) {
  // Ancillary field of a newer minor version: skipped.
  EXPECT_EQ(load_error(with_extra_field(bytes_, 40, "future", 4)), kNoError);
  // The same field claimed by a 1.0 file: corrupt.
  expect_error(load_error(with_extra_field(bytes_, 40, "future", 0)),
               {"bad.nbg", "node 0", "unknown field tag 40 in a version 1.0 file", "corrupt"});
  // A critical field must be understood, whatever the minor version.
  expect_error(load_error(with_extra_field(bytes_, 0x8000 | 40, "init spec", 4)),
               {"bad.nbg", "node 0", "field tag 40 is marked critical", "needs a newer nabla"});
  // A known field twice.
  std::string name_again = with_extra_field(bytes_, 2, "x", 0);
  expect_error(load_error(name_again), {"node 0", "field 'name' appears twice"});
  // A known field with a payload of the wrong length.
  expect_error(load_error(with_extra_field(bytes_, 10, "", 0)), {"field 'trainable'", "needs 1 more bytes"});
}

// ---- valid checksums, invalid graphs ---------------------------------------

class BrokenGraphs : public SavedGraphErrors {
 protected:
  // Writes `g` with the unjudging writer and returns the load error.
  std::string error_loading(const Graph& g) {
    detail::write_nbg(*g.data(), {}, path("broken.nbg"));
    return error_of([&] { load(path("broken.nbg")); });
  }
  Node& node(const Graph& g, const Tensor& t) { return g.data()->nodes[static_cast<std::size_t>(value_of(t)->ref.node)]; }
};

TEST_F(BrokenGraphs, UnknownOp) {
  Graph g;
  Tensor y = relu(g.placeholder(kFloat32, {2}, "x"));
  static OpDef unknown;  // not registered in the table
  unknown.name = "frobnicate";
  node(g, y).op = &unknown;
  expect_error(error_loading(g), {"broken.nbg", "node 1 'relu' (op)", "unknown op 'frobnicate'"});
}

TEST_F(BrokenGraphs, InputsMustBeEarlierNodes) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {2}, "x");
  Tensor y = relu(x);
  Tensor z = neg(x);
  node(g, y).inputs[0].node = value_of(z)->ref.node;
  expect_error(error_loading(g), {"broken.nbg", "node 1", "refers to node 2, expected an earlier node (< 1)"});
  node(g, y).inputs[0].node = 0;
  node(g, y).control_inputs.push_back(1);
  expect_error(error_loading(g), {"node 1", "a control input refers to node 1"});
}

TEST_F(BrokenGraphs, OpArityAndInference) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {2, 3}, "x");
  Tensor y = relu(x);
  node(g, y).op = find_op("add");
  expect_error(error_loading(g), {"node 1 'relu'", "op 'add' takes 2 inputs, the node has 1"});

  node(g, y).op = find_op("relu");
  node(g, y).metas[0].dtype = kFloat64;
  expect_error(error_loading(g), {"node 1 'relu'", "op 'relu' infers outputs (float32[2, 3])", "the file says (float64[2, 3])"});

  Graph h;
  Tensor a = h.placeholder(kFloat32, {2, 3}, "a");
  Tensor m = matmul(a, h.placeholder(kFloat32, {3, 4}, "b"));
  node(h, m).inputs[1] = node(h, m).inputs[0];  // [2,3] @ [2,3]
  expect_error(error_loading(h), {"broken.nbg", "node 2", "the op's inference rejects the saved inputs"});
}

// The public functions wrap and check dims before the op table sees them, so
// a loaded node's attributes are range-checked before its inference runs.
TEST_F(BrokenGraphs, AttributesAreRangeChecked) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {2, 3}, "x");
  auto [v, i] = max(x, 1);
  node(g, v).attrs = Attrs{int64_t{8193}, false};
  expect_error(error_loading(g), {"node 1 'max_dim'", "attribute 'dim' of op 'max_dim' is 8193 for an input of 2 dims"});
  Graph h;
  Tensor s = sum(h.placeholder(kFloat32, {2, 3}, "x"), {1});
  node(h, s).attrs = Attrs{Shape{-1}, false};
  expect_error(error_loading(h), {"attribute 'dims' of op 'sum' holds -1"});
  (void)i;
}

TEST_F(BrokenGraphs, PromotionsMustBeCastNodes) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {2}, "x");
  Tensor n = g.placeholder(kInt64, {2}, "n");
  Tensor y = x + x;
  node(g, y).inputs[1] = value_of(n)->ref;
  expect_error(error_loading(g), {"'add'", "input 1 is int64 but op 'add' computes in float32", "cast nodes"});
}

TEST_F(BrokenGraphs, OutputIndexNamesAndValues) {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {2}, "x");
  Tensor y = relu(x);
  node(g, y).inputs[0].output = 1;
  expect_error(error_loading(g), {"node 1 'relu'", "input 0 is output 1 of node 'x', which has 1 output(s)"});

  Graph d;
  Tensor p = d.placeholder(kFloat32, {2}, "p");
  Tensor q = d.placeholder(kFloat32, {2}, "q");
  node(d, q).name = "p";
  expect_error(error_loading(d), {"broken.nbg", "two nodes are called 'p'"});
  node(d, q).name = "";
  expect_error(error_loading(d), {"node 1", "the name is empty"});
  (void)p;

  Graph c;
  Tensor k = c.constant(ones({2}), "k");
  node(c, k).metas[0].sizes = Shape{3};
  expect_error(error_loading(c), {"node 0 'k' (constant)", "the value is float32[2] but the node's meta says float32[3]"});
}

TEST_F(BrokenGraphs, StateNodes) {
  Graph g;
  Tensor w = g.variable(ones({2}), "w");
  Tensor c = g.constant(ones({2}), "c");
  Tensor a = assign(w, c * 2.0);
  node(g, a).target = value_of(c)->ref.node;
  expect_error(error_loading(g), {"'w_assign' (assign)", "the target 'c' is not a variable"});

  Graph h;
  Tensor v = h.variable(ones({2}), "v");
  Tensor k = h.constant(ones({2}), "k");
  Tensor init = h.global_variables_initializer();
  node(h, init).variables.push_back(value_of(k)->ref.node);
  expect_error(error_loading(h), {"'init' (initializer)", "initializes node 'k', which is not a variable"});
  (void)v;

  Graph r;
  Tensor x = r.placeholder(kFloat32, {2}, "x");
  Tensor grp = group({relu(x)});
  Tensor y = neg(x);
  node(r, y).inputs[0] = value_of(grp)->ref;
  expect_error(error_loading(r), {"'neg'", "input 0 is node 'group', which has no value"});
}

TEST_F(BrokenGraphs, BoolTensorBytesAreChecked) {
  Graph g;
  g.constant(ones({3}, kBool), "mask");
  save(g, path("mask.nbg"));
  std::string b = read_bytes(path("mask.nbg"));
  ASSERT_EQ(get_le(b, 24, 8), 3u);  // the data section: the three bytes
  b[b.size() - 2] = 2;
  fix_checksums(b);
  expect_error(load_error(b), {"bad.nbg", "node 0 field 'value'", "a bool tensor holds byte 2; expected 0 or 1"});
}

}  // namespace
}  // namespace nabla::graph

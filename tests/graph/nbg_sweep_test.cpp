// Corrupted-file sweep of graph::load and Session::load (issue 13, acceptance
// 2): 300 seeded mutants each of a saved graph with variables, ops, an
// update, an initializer and a while loop. A .nbg file has CRC-32s of its
// header, node table and data: every mutant must be refused or load the
// original graph exactly (compared by saving what was loaded again), except
// where the test's repair recomputed the checksums after the damage — then
// only the structural checks stand between the bytes and the graph, the load
// must still be clean, and a changed count, length, size or dtype that
// another field repeats (a node's metas, a value's byte count) must be refused.
#include <gtest/gtest.h>

#include <filesystem>

#include "nabla/nabla.h"
#include "tests/support/nbg_bytes.h"
#include "tests/support/sweep.h"

namespace nabla::graph {
namespace {

using namespace nabla::testing;

Graph sweep_graph() {
  Graph g;
  Tensor x = g.placeholder(kFloat32, {2, 3}, "x");
  Tensor w = g.variable(arange(0, 12, 1, dtype(kFloat32)).reshape({3, 4}), "w");
  Tensor b = g.variable(full({4}, 0.25), "b");
  Tensor y = relu(matmul(x, w) + b);
  assign_sub(w, full({3, 4}, 0.5));
  std::vector<Tensor> loop = while_loop([](const std::vector<Tensor>& v) { return v[0] < 3; },
                                        [&](const std::vector<Tensor>& v) -> std::vector<Tensor> {
                                          return {v[0] + 1, v[1] * 2};
                                        },
                                        {zeros({}, kInt64), sum(y)}, /*maximum_iterations=*/10);
  (void)loop;
  g.global_variables_initializer();
  return g;
}

// The node table's framing and the fields other fields repeat, found by
// walking the good file's top-level records (docs/nbg-format.md).
std::vector<Field> nbg_fields(const std::string& b) {
  std::vector<Field> f;
  const auto add = [&](std::string name, std::size_t at, std::size_t width, bool redundant, bool no_repair = false,
                       std::string group = "") {
    f.push_back({std::move(name), at, width, FieldKind::LittleEndian, {}, redundant, no_repair, std::move(group)});
  };
  add("major version", 8, 2, false);
  add("minor version", 10, 2, false);
  add("flags", 12, 4, false);
  add("table size", 16, 8, true);
  add("data size", 24, 8, true);
  add("table crc-32", 32, 4, true, true);
  add("data crc-32", 36, 4, true, true);
  add("header crc-32", 40, 4, true, true);
  std::size_t pos = kNbgHeader;
  const std::size_t nodes = get_le(b, pos, 4);
  add("node count", pos, 4, true);
  pos += 4;
  for (std::size_t n = 0; n < nodes; ++n) {
    const std::string node = "node " + std::to_string(n) + " ";
    const std::size_t fields = get_le(b, pos, 4);
    add(node + "field count", pos, 4, true);
    pos += 4;
    int kind = -1;
    std::vector<std::pair<std::size_t, std::size_t>> metas;  // (offset, length) of a metas field
    for (std::size_t i = 0; i < fields; ++i) {
      const std::size_t tag = get_le(b, pos, 2), len = get_le(b, pos + 2, 4), v = pos + 6;
      add(node + "tag " + std::to_string(tag), pos, 2, false);
      add(node + "tag " + std::to_string(tag) + " length", pos + 2, 4, true);
      if (tag == 1) kind = static_cast<int>(get_le(b, v, 1));
      if (tag == 1) add(node + "kind", v, 1, false);
      if (tag == 7) metas.emplace_back(v, len);
      if (tag == 5) add(node + "input count", v, 4, true);
      if (tag == 4 && len >= 5) {  // attrs: u32 count, then (u8 type, value) in the op's order
        add(node + "attr count", v, 4, true);
        add(node + "attr 0 type", v + 4, 1, true);
        if (get_le(b, v + 4, 1) == 1 && len >= 13) add(node + "attr 0 (i64)", v + 5, 8, false);  // a loop bound
      }
      if (tag == 5 && len >= 12) add(node + "input 0", v + 4, 4, false);
      if (tag == 9) {  // value: u8 dtype, u32 ndim, i64 sizes, u64 offset, u64 nbytes
        const std::size_t ndim = get_le(b, v + 1, 4), off = v + 5 + 8 * ndim;
        add(node + "value dtype", v, 1, true);
        add(node + "value ndim", v + 1, 4, true);
        for (std::size_t d = 0; d < ndim; ++d) add(node + "value size " + std::to_string(d), v + 5 + 8 * d, 8, true, false, node);
        add(node + "value offset", off, 8, false);  // ranges may overlap (the format allows it)
        add(node + "value nbytes", off + 8, 8, true);
      }
      pos = v + len;
    }
    // A placeholder's metas are its only description; every other node's are
    // recomputed (ops) or repeated (a variable's value, an assign's target).
    for (const auto& [v, len] : metas) {
      add(node + "metas count", v, 4, kind != 1);
      if (len >= 9) add(node + "metas dtype", v + 4, 1, kind != 1);
      if (len >= 9) add(node + "metas ndim", v + 5, 4, kind != 1);
    }
  }
  return f;
}

// fix_checksums, for damaged files too: the section CRCs only while the
// header's sizes still fit the file.
void repair_checksums(std::string& b) {
  if (b.size() < kNbgHeader) return;
  const uint64_t table = get_le(b, 16, 8), data = get_le(b, 24, 8), body = b.size() - kNbgHeader;
  if (table <= body && data <= body - table) {
    put_le(b, 32, crc(b.data() + kNbgHeader, table), 4);
    put_le(b, 36, crc(b.data() + kNbgHeader + table, data), 4);
  }
  put_le(b, 40, crc(b.data(), 40), 4);
}

SweepTally sweep(const std::string& api, uint64_t seed,
                 const std::function<void(const std::string& from, const std::string& to)>& load_and_save) {
  const std::string dir = sweep_dir("nbg");
  graph::save(sweep_graph(), dir + "/good.nbg");
  const std::string good = file_bytes(dir + "/good.nbg");
  MutatorSpec spec;
  spec.fields = nbg_fields(good);
  spec.repair = repair_checksums;
  spec.cut_points = {kNbgHeader, kNbgHeader + get_le(good, 16, 8)};
  spec.header_end = kNbgHeader + get_le(good, 16, 8);
  spec.length_is_declared = true;
  SweepCase c{api, api, dir + "/mutant.nbg", /*checked=*/true,
              [&](const std::string& path) {
                load_and_save(path, dir + "/resaved.nbg");
                return file_bytes(dir + "/resaved.nbg");
              },
              {}};
  const SweepTally t = run_sweep(c, good, make_mutants(good, spec, seed, mutant_count(300)));
  std::filesystem::remove_all(dir);
  return t;
}

TEST(NbgSweep, GraphLoad) {
  const SweepTally t =
      sweep("graph::load", 1309, [](const std::string& from, const std::string& to) { save(load(from), to); });
  EXPECT_GT(t.refused, 200);
}

TEST(NbgSweep, SessionLoad) {
  const SweepTally t = sweep("graph::Session::load", 1310, [](const std::string& from, const std::string& to) {
    save(Session::load(from), to);
  });
  EXPECT_GT(t.refused, 200);
}

}  // namespace
}  // namespace nabla::graph

// Corrupted-file sweep of read_idx (issue 13, acceptance 2): 300 seeded
// mutants of a plain IDX file and 300 of the same file gzip-compressed. A
// plain IDX file has no checksum: a changed value or a type code of the same
// width (float32 <-> int32) loads as different values and is counted; a
// changed dim count or size, or a cut-off file, must be refused. A gzip file
// has a CRC-32 and the length of its data in its trailer: every mutant must
// be refused or load the original tensor exactly.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>

#include "nabla/nabla.h"
#include "tests/support/sweep.h"
#include "tests/support/sweep_formats.h"

namespace nabla::data {
namespace {

using namespace nabla::testing;

// A float32 [2, 3, 4] IDX file: magic, type 0x0D, 3 dims, big-endian values.
std::string idx_file() {
  std::string b = {0, 0, 0x0D, 3, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4};
  for (int i = 0; i < 24; ++i) {
    const float v = static_cast<float>(i) - 7.5f;
    uint32_t u;
    std::memcpy(&u, &v, 4);
    for (int k = 3; k >= 0; --k) b.push_back(static_cast<char>((u >> (8 * k)) & 0xff));
  }
  return b;
}

std::string gzip(const std::string& raw) {
  z_stream s{};
  EXPECT_EQ(deflateInit2(&s, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&s, raw.size()) + 64, '\0');
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
  s.avail_in = static_cast<uInt>(raw.size());
  s.next_out = reinterpret_cast<Bytef*>(out.data());
  s.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&s, Z_FINISH), Z_STREAM_END);
  out.resize(s.total_out);
  deflateEnd(&s);
  return out;
}

SweepTally sweep(const std::string& name, const std::string& good, const MutatorSpec& spec, bool checked,
                 uint64_t seed) {
  const std::string dir = sweep_dir("idx_" + name);
  SweepCase c{"read_idx (" + name + ")", "read_idx", dir + "/mutant-idx3-ubyte", checked,
              [](const std::string& path) { return describe(read_idx(path)); }, {}};
  const SweepTally t = run_sweep(c, good, make_mutants(good, spec, seed, mutant_count(300)));
  std::filesystem::remove_all(dir);
  return t;
}

TEST(IdxSweep, Plain) {
  const std::string good = idx_file();
  MutatorSpec spec;
  spec.fields = {{"magic 0", 0, 1, FieldKind::LittleEndian},
                 {"magic 1", 1, 1, FieldKind::LittleEndian},
                 {"type code", 2, 1, FieldKind::LittleEndian},
                 {"dim count", 3, 1, FieldKind::LittleEndian, {}, true},
                 {"dim 0", 4, 4, FieldKind::BigEndian, {}, true, false, "dims"},
                 {"dim 1", 8, 4, FieldKind::BigEndian, {}, true, false, "dims"},
                 {"dim 2", 12, 4, FieldKind::BigEndian, {}, true, false, "dims"}};
  spec.cut_points = {4, 16, good.size() - 4};
  spec.header_end = 16;
  spec.length_is_declared = true;
  EXPECT_GT(sweep("plain", good, spec, /*checked=*/false, 1307).refused, 150);
}

TEST(IdxSweep, Gzip) {
  const std::string good = gzip(idx_file());
  MutatorSpec spec;
  spec.fields = {{"gzip magic", 0, 2, FieldKind::LittleEndian},
                 {"gzip method", 2, 1, FieldKind::LittleEndian},
                 {"gzip flags", 3, 1, FieldKind::LittleEndian},
                 {"gzip mtime", 4, 4, FieldKind::LittleEndian},
                 {"gzip os", 9, 1, FieldKind::LittleEndian},
                 {"gzip crc-32", good.size() - 8, 4, FieldKind::LittleEndian, {}, true},
                 {"gzip size", good.size() - 4, 4, FieldKind::LittleEndian, {}, true}};
  spec.cut_points = {10, good.size() - 8, good.size() - 4};
  spec.header_end = 10;
  spec.length_is_declared = true;
  EXPECT_GT(sweep("gzip", good, spec, /*checked=*/true, 1308).refused, 200);
}

}  // namespace
}  // namespace nabla::data

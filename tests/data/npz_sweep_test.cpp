// Corrupted-file sweep of read_npz (issue 13, acceptance 2): 300 seeded
// mutants of each of four archives — one written by write_npz (stored
// members) and NumPy's own (tests/data/fixtures: np.savez stored, with ZIP64
// extras; np.savez_compressed, deflate; np.savez to a stream, with data
// descriptors). A ZIP file checks itself: each member's CRC-32, and the entry
// counts, sizes, offsets, names, flags and methods said twice (end record,
// central directory, local headers, data descriptors). So every mutant must
// be refused or load the original arrays exactly — except where the test's
// repair recomputed the CRC-32s after damaging a stored member (then the
// archive is valid and different, and only has to load cleanly or be refused
// by the .npy checks, naming read_npz).
#include <gtest/gtest.h>

#include <filesystem>

#include "nabla/nabla.h"
#include "tests/support/error_message.h"
#include "tests/support/nbg_bytes.h"  // crc, get_le, put_le
#include "tests/support/sweep.h"
#include "tests/support/sweep_formats.h"

namespace nabla::data {
namespace {

using namespace nabla::testing;

// Where a good archive keeps its fields, found by walking its directory.
struct ZipLayout {
  struct Member {
    std::size_t central = 0, local = 0, data = 0, size = 0, descriptor_crc = 0;  // descriptor_crc 0: none
    bool local_crc = false;  // the local header holds the CRC (no data descriptor)
  };
  std::vector<Member> members;
  std::vector<Field> fields;
  std::vector<std::size_t> cuts;
};

ZipLayout layout_of(const std::string& z) {
  ZipLayout L;
  const auto field = [&](std::string name, std::size_t at, std::size_t width, bool redundant, bool defers = false) {
    // The repair rewrites CRC-32 fields: an edit of one is not repaired.
    const bool crc_field = name.find("crc-32") != std::string::npos;
    L.fields.push_back({std::move(name), at, width, FieldKind::LittleEndian, {}, redundant, crc_field, "", defers});
  };
  const std::size_t end = z.size() - 22;
  EXPECT_EQ(get_le(z, end, 4), 0x06054b50u) << "the good archive has a comment or is not a ZIP file";
  const std::size_t count = get_le(z, end + 10, 2), dir = get_le(z, end + 16, 4);
  field("end: disk number", end + 4, 2, false);
  field("end: entries on this disk", end + 8, 2, true);
  field("end: total entries", end + 10, 2, true);
  field("end: directory size", end + 12, 4, true);
  field("end: directory offset", end + 16, 4, true);
  field("end: comment length", end + 20, 2, true);
  L.cuts = {dir, end, end + 22};
  std::size_t pos = dir;
  for (std::size_t i = 0; i < count; ++i) {
    ZipLayout::Member m;
    m.central = pos;
    const std::string c = "central " + std::to_string(i) + ": ";
    field(c + "version made by", pos + 4, 2, false);
    field(c + "flags", pos + 8, 2, true);
    field(c + "method", pos + 10, 2, true);
    field(c + "crc-32", pos + 16, 4, true);
    field(c + "compressed size", pos + 20, 4, true);
    field(c + "size", pos + 24, 4, true);
    field(c + "name length", pos + 28, 2, true);
    field(c + "extra length", pos + 30, 2, true);
    field(c + "comment length", pos + 32, 2, true);
    field(c + "local header offset", pos + 42, 4, true);
    const std::size_t name_len = get_le(z, pos + 28, 2);
    L.fields.push_back({c + "name", pos + 46, name_len, FieldKind::Tag,
                        {"../x.npy", "/x.npy", "x\\y.npy", "C:x.npy", "x.npz", "f32.npy", "a.npy"}, true, false});
    m.size = get_le(z, pos + 20, 4);
    m.local = get_le(z, pos + 42, 4);
    const uint64_t flags = get_le(z, pos + 8, 2);
    pos += 46 + name_len + get_le(z, pos + 30, 2) + get_le(z, pos + 32, 2);
    const std::string l = "local " + std::to_string(i) + ": ";
    const std::size_t lo = m.local;
    field(l + "flags", lo + 6, 2, true);
    field(l + "method", lo + 8, 2, true);
    field(l + "mod time", lo + 10, 2, false);
    m.local_crc = !(flags & 8);
    field(l + "crc-32", lo + 14, 4, m.local_crc);
    // With a ZIP64 extra field, 0xFFFFFFFF says "the size is in the extra field".
    const bool zip64 = get_le(z, lo + 28, 2) >= 4 && get_le(z, lo + 30 + get_le(z, lo + 26, 2), 2) == 1;
    field(l + "compressed size", lo + 18, 4, m.local_crc, zip64);
    field(l + "size", lo + 22, 4, m.local_crc, zip64);
    field(l + "name length", lo + 26, 2, true);
    field(l + "extra length", lo + 28, 2, true);
    m.data = lo + 30 + get_le(z, lo + 26, 2) + get_le(z, lo + 28, 2);
    L.fields.push_back({l + "name", lo + 30, get_le(z, lo + 26, 2), FieldKind::Tag, {"../x.npy", "f32.npy", "b.npy"},
                        true, false});
    // The .npy inside: its header's first bytes (length, dict start).
    field(l + "npy header length", m.data + 8, 2, false);
    L.cuts.insert(L.cuts.end(), {lo, lo + 30, m.data, m.data + m.size});
    if (flags & 8) {  // data descriptor: [signature] crc-32, compressed size, size
      const std::size_t d = m.data + m.size + (get_le(z, m.data + m.size, 4) == 0x08074b50u ? 4 : 0);
      m.descriptor_crc = d;
      field(l + "descriptor crc-32", d, 4, true);
      field(l + "descriptor size", d + 8, 4, true);
    }
    L.members.push_back(m);
  }
  return L;
}

// Recomputes every stored member's CRC-32 where the archive keeps it, as a
// writer would after the damage (an archive of the same size only).
std::function<void(std::string&)> crc_repair(const ZipLayout& L, std::size_t good_size) {
  return [L, good_size](std::string& b) {
    if (b.size() != good_size) return;
    for (const ZipLayout::Member& m : L.members) {
      const uint32_t c = crc(b.data() + m.data, m.size);
      put_le(b, m.central + 16, c, 4);
      if (m.local_crc) put_le(b, m.local + 14, c, 4);
      if (m.descriptor_crc) put_le(b, m.descriptor_crc, c, 4);
    }
  };
}

SweepTally sweep(const std::string& name, const std::string& good, bool stored, uint64_t seed) {
  const std::string dir = sweep_dir("npz_" + name);
  const ZipLayout L = layout_of(good);
  MutatorSpec spec;
  spec.fields = L.fields;
  spec.cut_points = L.cuts;
  if (stored) spec.repair = crc_repair(L, good.size());
  spec.header_end = 0;
  spec.length_is_declared = true;
  SweepCase c{"read_npz (" + name + ")", "read_npz", dir + "/mutant.npz", /*checked=*/true,
              [](const std::string& path) { return describe_all(read_npz(path)); }, {}};
  const SweepTally t = run_sweep(c, good, make_mutants(good, spec, seed, mutant_count(300)));
  std::filesystem::remove_all(dir);
  return t;
}

std::string fixture(const std::string& file) {
  return file_bytes(std::string(NABLA_TESTS_DIR) + "/data/fixtures/" + file);
}

// Found by the sweep: a member whose .npy header is malformed (a bit flipped
// in 'fortran_order', the CRC-32s recomputed) was refused by parse_npy as
// "read_npy: 'x.npz[mask.npy]' ...", naming an API the user did not call.
TEST(NpzSweep, MemberErrorsNameReadNpz) {
  const std::string dir = sweep_dir("npz_member");
  const std::string path = dir + "/x.npz";
  write_npz(path, {{"mask", ones({3}, dtype(kBool))}});
  std::string b = file_bytes(path);
  const ZipLayout L = layout_of(b);
  const std::size_t at = b.find("fortran_order");
  b[at + 9] = 'R';  // fortran_oRder
  crc_repair(L, b.size())(b);
  put_file(path, b);
  expect_error(error_of([&] { read_npz(path); }),
               {"read_npz: '", path.c_str(), "' member 'mask.npy' header has an unknown key 'fortran_oRder'"});
  std::filesystem::remove_all(dir);
}

// Found by the sweep: the data descriptors of a streamed archive (CRC-32 and
// sizes after each member's data, flag bit 3) were not read, so a descriptor
// that disagreed with the central directory loaded.
TEST(NpzSweep, DataDescriptorsMustAgree) {
  const std::string dir = sweep_dir("npz_descriptor");
  const std::string good = fixture("numpy_savez_stream.npz"), path = dir + "/x.npz";
  const ZipLayout L = layout_of(good);
  ASSERT_NE(L.members[0].descriptor_crc, 0u);
  for (const auto& [offset, field] : {std::pair<std::size_t, const char*>{0, "'crc-32'"},
                                      {4, "'compressed size'"},
                                      {12, "'uncompressed size'"}}) {
    std::string b = good;
    b[L.members[0].descriptor_crc + offset] ^= 1;
    put_file(path, b);
    expect_error(error_of([&] { read_npz(path); }),
                 {"read_npz: '", path.c_str(), "' member 'f32.npy': data descriptor field ", field});
  }
  std::filesystem::remove_all(dir);
}

TEST(NpzSweep, WrittenByWriteNpz) {
  const std::string dir = sweep_dir("npz_good");
  write_npz(dir + "/good.npz", {{"w", arange(0, 6, 1, dtype(kFloat32)).reshape({2, 3})},
                                {"ids", arange(0, 4, 1, dtype(kInt64))},
                                {"mask", ones({3}, dtype(kBool))}});
  const SweepTally t = sweep("write_npz, stored", file_bytes(dir + "/good.npz"), /*stored=*/true, 1303);
  EXPECT_GT(t.refused, 200);
  std::filesystem::remove_all(dir);
}

TEST(NpzSweep, NumpySavezStored) {
  EXPECT_GT(sweep("np.savez, stored", fixture("numpy_savez.npz"), /*stored=*/true, 1304).refused, 200);
}

TEST(NpzSweep, NumpySavezCompressed) {
  EXPECT_GT(sweep("np.savez_compressed, deflate", fixture("numpy_savez_compressed.npz"), /*stored=*/false, 1305).refused,
            200);
}

TEST(NpzSweep, NumpySavezToAStream) {
  EXPECT_GT(sweep("np.savez to a stream, data descriptors", fixture("numpy_savez_stream.npz"), /*stored=*/true, 1306)
                .refused,
            200);
}

}  // namespace
}  // namespace nabla::data

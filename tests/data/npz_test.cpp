// .npz archives (nabla/data/npz.h): round trips, archives written by NumPy
// (stored and deflate members with ZIP64 local headers, and data descriptors:
// fixtures/, made by make_npz_fixture.py), and damaged archives refused with
// clear errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "nabla/nabla.h"
#include "tests/support/error_message.h"
#include "tests/support/file_bytes.h"
#include "tests/support/temp_files.h"
#include "tests/support/tensor_values.h"

namespace nabla::data {
namespace {

namespace fs = std::filesystem;

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

using nabla::testing::double_values;
using nabla::testing::error_of;
using nabla::testing::file_bytes;
using nabla::testing::temp_path_in;

const Tensor& find(const NpzArrays& a, const std::string& name) {
  for (const auto& [n, t] : a)
    if (n == name) return t;
  throw std::runtime_error("no array " + name);
}

TEST(Npz, RoundTripsNamesOrderDtypesAndShapes) {
  manual_seed(0);
  NpzArrays arrays = {{"weights", randn({3, 4})},
                      {"labels", tensor(std::vector<int64_t>{4, -1, 9})},
                      {"mask", tensor(std::vector<uint8_t>{1, 0}).to(kBool)},
                      {"scalar", tensor({2.5}, dtype(kFloat64)).reshape({})},
                      {"empty", zeros({0, 3})},
                      {"strided", arange(12).reshape({3, 4}).transpose(0, 1)}};
  const std::string path = temp_path_in("nabla_npz_test", "round.npz");
  write_npz(path, arrays);
  NpzArrays back = read_npz(path);
  ASSERT_EQ(back.size(), arrays.size());
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    EXPECT_EQ(back[i].first, arrays[i].first);
    EXPECT_EQ(back[i].second.dtype(), arrays[i].second.dtype()) << arrays[i].first;
    EXPECT_EQ(back[i].second.sizes(), arrays[i].second.sizes()) << arrays[i].first;
    EXPECT_EQ(double_values(back[i].second), double_values(arrays[i].second)) << arrays[i].first;
  }
  write_npz(path, {});
  EXPECT_TRUE(read_npz(path).empty());
}

void expect_numpy_fixture(const std::string& file) {
  NpzArrays a = read_npz(std::string(NABLA_TESTS_DIR) + "/data/fixtures/" + file);
  ASSERT_EQ(a.size(), 9u);
  EXPECT_EQ(a[0].first, "f32");  // archive order is np.savez's keyword order
  EXPECT_EQ(find(a, "f32").sizes(), (Shape{2, 3}));
  EXPECT_EQ(double_values(find(a, "f32")), (std::vector<double>{0, 0.25, 0.5, 0.75, 1, 1.25}));
  EXPECT_EQ(find(a, "f64").dtype(), kFloat64);
  EXPECT_EQ(double_values(find(a, "f64")), (std::vector<double>{1.5, -2.25, 1e300}));
  EXPECT_EQ(find(a, "i64").to_vector<int64_t>(), (std::vector<int64_t>{-(int64_t(1) << 40), 7}));
  EXPECT_EQ(double_values(find(a, "u8")), (std::vector<double>{0, 255, 7}));
  EXPECT_EQ(find(a, "bool").dtype(), kBool);
  EXPECT_EQ(double_values(find(a, "bool")), (std::vector<double>{1, 0}));
  EXPECT_EQ(find(a, "scalar").dim(), 0);
  EXPECT_EQ(find(a, "scalar").item<float>(), 3.0f);
  EXPECT_EQ(double_values(find(a, "fortran")), (std::vector<double>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(double_values(find(a, "big_endian")), (std::vector<double>{1, 2}));
  EXPECT_EQ(find(a, "zeros").sizes(), (Shape{100, 10}));
  EXPECT_EQ(find(a, "zeros").abs().sum().item<float>(), 0.0f);
}

TEST(Npz, ReadsNumpySavez) { expect_numpy_fixture("numpy_savez.npz"); }
TEST(Npz, ReadsNumpySavezCompressed) { expect_numpy_fixture("numpy_savez_compressed.npz"); }
// Written to a stream that cannot seek: CRC and sizes in data descriptors
// after each member's data (flag bit 3), zeros in the local headers.
TEST(Npz, ReadsNumpySavezToAStream) { expect_numpy_fixture("numpy_savez_stream.npz"); }

TEST(Npz, WriteErrors) {
  EXPECT_NE(error_of([] {
              write_npz(temp_path_in("nabla_npz_test", "dup.npz"), {{"a", zeros({1})}, {"a", zeros({2})}});
            }).find("two arrays are named 'a'"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              write_npz(temp_path_in("nabla_npz_test", "e.npz"), {{"", zeros({1})}});
            }).find("array names must be"),
            std::string::npos);
  EXPECT_THROW(write_npz(temp_path_in("nabla_npz_test", "bf.npz"), {{"x", zeros({1}, kBFloat16)}}), Error);
}

TEST(Npz, RefusesDamagedArchives) {
  const std::string good = temp_path_in("nabla_npz_test", "good.npz");
  write_npz(good, {{"x", arange(10).to(kFloat32)}, {"y", ones({2, 2})}});
  const std::string bytes = file_bytes(good);
  auto refused = [&](const std::string& name, const std::string& b) {
    std::string p = temp_path_in("nabla_npz_test", name);
    spit(p, b);
    return error_of([&] { read_npz(p); });
  };
  EXPECT_NE(refused("short.npz", "PK").find("not a .npz (ZIP) file"), std::string::npos);
  EXPECT_NE(refused("noend.npz", std::string(100, 'x')).find("no end-of-central-directory"), std::string::npos);
  EXPECT_NE(refused("cut.npz", bytes.substr(0, bytes.size() - 30)).find("read_npz"), std::string::npos);
  // Flip a byte of x's data (after its 30-byte local header, the name and the
  // 128-byte .npy header): the CRC catches it.
  std::string flipped = bytes;
  flipped[30 + 5 + 128 + 4] ^= 0x40;
  EXPECT_NE(refused("crc.npz", flipped).find("member 'x.npy' fails its CRC-32 check"), std::string::npos);
  // An unknown compression method (bzip2 = 12) in the central directory.
  std::string method = bytes;
  const std::size_t dir = bytes.find("PK\x01\x02");
  ASSERT_NE(dir, std::string::npos);
  method[dir + 10] = 12;
  EXPECT_NE(refused("method.npz", method).find("compression method 12"), std::string::npos);
  // A member that is not .npy.
  std::string renamed = bytes;
  for (std::size_t p = 0; (p = renamed.find("x.npy", p)) != std::string::npos; ++p) renamed.replace(p, 5, "x.txt");
  EXPECT_NE(refused("txt.npz", renamed).find("member 'x.txt' is not a .npy file"), std::string::npos);
  // Data offsets pointing past the end.
  std::string offset = bytes;
  offset[dir + 42 + 46 + 5 + 3] = 0x7F;  // local header offset of the second member
  EXPECT_NE(refused("offset.npz", offset).find("is truncated or corrupt"), std::string::npos);
  EXPECT_NE(error_of([] { read_npz("/nonexistent.npz"); }).find("cannot open"), std::string::npos);
}

// Every single-byte corruption of a small archive either still reads (a byte
// the format ignores, e.g. a timestamp) or raises nabla::Error: never a crash
// or another exception.
TEST(Npz, EveryByteFlipReadsOrRaisesError) {
  const std::string good = temp_path_in("nabla_npz_test", "flip_src.npz");
  write_npz(good, {{"a", arange(3).to(kFloat32)}, {"b", tensor(std::vector<int64_t>{1, 2})}});
  const std::string bytes = file_bytes(good), path = temp_path_in("nabla_npz_test", "flip.npz");
  int refused = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::string b = bytes;
    b[i] = static_cast<char>(b[i] ^ 0xA5);
    spit(path, b);
    try {
      read_npz(path);
    } catch (const Error&) {
      ++refused;
    }
  }
  EXPECT_GT(refused, static_cast<int>(bytes.size()) / 2);
}

void put_le(std::string& b, std::size_t at, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

// A ZIP says most things twice; an archive whose copies disagree is refused
// naming the field, whichever copy another reader would trust. (An end record
// saying 0 entries over a full directory used to load as an empty archive,
// while NumPy reads the members.)
TEST(Npz, RefusesArchivesWhoseRedundantFieldsDisagree) {
  const std::string good = temp_path_in("nabla_npz_test", "redundant.npz");
  write_npz(good, {{"x", arange(10).to(kFloat32)}, {"y", ones({2, 2})}});
  const std::string bytes = file_bytes(good);
  const std::size_t end = bytes.rfind("PK\x05\x06"), dir = bytes.find("PK\x01\x02");
  ASSERT_NE(end, std::string::npos);
  auto refused = [&](const std::string& name, const std::string& b) {
    std::string p = temp_path_in("nabla_npz_test", name);
    spit(p, b);
    return error_of([&] { read_npz(p); });
  };
  auto expect = [&](const std::string& name, const std::string& b, std::initializer_list<const char*> parts) {
    SCOPED_TRACE(name);
    const std::string msg = refused(name, b);
    nabla::testing::expect_error(msg, {"read_npz", name.c_str()});
    nabla::testing::expect_error(msg, parts);
  };
  std::string zero = bytes;  // both entry counts 0
  put_le(zero, end + 8, 0, 2), put_le(zero, end + 10, 0, 2);
  expect("zero.npz", zero, {"'central directory size'", "its 0 entries take"});
  std::string disk = bytes;  // 1 entry on this disk, 2 in total
  put_le(disk, end + 8, 1, 2);
  expect("disk.npz", disk, {"1 entries on this disk, 2 in total"});
  std::string size = bytes;  // directory size 10 bytes too large
  put_le(size, end + 12, end - dir + 10, 4);
  expect("size.npz", size, {"'central directory offset'", "but the end record starts at"});
  std::string offset = bytes;  // directory offset one byte early, size one byte larger
  put_le(offset, end + 12, end - dir + 1, 4), put_le(offset, end + 16, dir - 1, 4);
  expect("offset.npz", offset, {"bad central directory entry 0"});
  std::string comment = bytes + "trailing";  // bytes after the end record that its comment length does not cover
  expect("comment.npz", comment, {"'comment length' is 0 but 8 bytes follow"});

  // Local header (at 0 for x.npy) against its central directory entry.
  std::string name = bytes;
  name[30] = 'z';
  expect("name.npz", name, {"member 'x.npy'", "local header field 'file name' is 'z.npy'"});
  std::string crc = bytes;
  crc[14] ^= 1;
  expect("crc.npz", crc, {"member 'x.npy'", "local header field 'crc-32'"});
  std::string usize = bytes;
  usize[22] ^= 1;
  expect("usize.npz", usize, {"local header field 'uncompressed size'"});
  std::string csize = bytes;
  csize[18] ^= 1;
  expect("csize.npz", csize, {"local header field 'compressed size'"});
  std::string method = bytes;
  method[8] = 8;
  expect("lmethod.npz", method, {"local header field 'compression method' is 8 but the central directory says 0"});
  std::string flags = bytes;
  flags[6] = 8;
  expect("flags.npz", flags, {"local header field 'flags' is 8"});
}

// Two directory entries whose data share bytes (one member hidden inside the
// other's data, every CRC valid) are refused.
TEST(Npz, RefusesOverlappingMembers) {
  const std::string inner_path = temp_path_in("nabla_npz_test", "inner.npz");
  write_npz(inner_path, {{"b", arange(4).to(kFloat32)}});
  const std::string inner = file_bytes(inner_path);
  const std::size_t inner_dir = inner.find("PK\x01\x02"), inner_end = inner.rfind("PK\x05\x06");
  const std::string b_local = inner.substr(0, inner_dir), b_entry = inner.substr(inner_dir, inner_end - inner_dir);
  // "a" holds b's whole local member as its uint8 data.
  std::vector<uint8_t> raw(b_local.begin(), b_local.end());
  const std::string outer_path = temp_path_in("nabla_npz_test", "outer.npz");
  write_npz(outer_path, {{"a", tensor(raw)}});
  const std::string outer = file_bytes(outer_path);
  const std::size_t dir = outer.find("PK\x01\x02"), end = outer.rfind("PK\x05\x06");
  const std::size_t b_at = outer.find(b_local);
  ASSERT_NE(b_at, std::string::npos);
  std::string entry = b_entry;
  put_le(entry, 42, b_at, 4);  // b's local header: inside a's data
  std::string out = outer.substr(0, end) + entry + outer.substr(end);
  const std::size_t new_end = end + entry.size();
  put_le(out, new_end + 8, 2, 2), put_le(out, new_end + 10, 2, 2);
  put_le(out, new_end + 12, new_end - dir, 4);
  const std::string path = temp_path_in("nabla_npz_test", "overlap.npz");
  spit(path, out);
  nabla::testing::expect_error(error_of([&] { read_npz(path); }),
                               {"read_npz", path.c_str(), "overlapping members", "the next member starts at"});
}

TEST(Npz, RefusesMemberNamesThatEscapeTheFolder) {
  const std::string out = temp_path_in("nabla_npz_test", "escape.npz");
  for (const char* key : {"../x", "a/../../x", "/abs", "a\\b", "C:x"}) {
    SCOPED_TRACE(key);
    nabla::testing::expect_error(error_of([&] {
                                   write_npz(out, {{key, zeros({1})}});
                                 }),
                                 {"write_npz", out.c_str(), "would escape the archive's folder"});
  }
  EXPECT_FALSE(fs::exists(out));
  // A name with a folder inside the archive is fine, as in NumPy.
  write_npz(out, {{"dir/x", zeros({1})}, {"a..b", ones({1})}});
  EXPECT_EQ(read_npz(out)[0].first, "dir/x");
  EXPECT_EQ(read_npz(out)[1].first, "a..b");
  // Reading: names patched in both directories (same length).
  write_npz(out, {{"..-x", zeros({1})}, {"_abs", zeros({1})}, {"a_b", zeros({1})}});
  std::string bytes = file_bytes(out);
  auto patch = [&](const std::string& from, const std::string& to) {
    std::string b = bytes;
    for (std::size_t p = 0; (p = b.find(from, p)) != std::string::npos; ++p) b.replace(p, from.size(), to);
    const std::string path = temp_path_in("nabla_npz_test", "bad_name.npz");
    spit(path, b);
    return error_of([&] { read_npz(path); });
  };
  nabla::testing::expect_error(patch("..-x.npy", "../x.npy"),
                               {"read_npz", "member name '../x.npy' would escape", "a '..' component"});
  nabla::testing::expect_error(patch("_abs.npy", "/abs.npy"), {"read_npz", "'/abs.npy'", "an absolute path"});
  nabla::testing::expect_error(patch("a_b.npy", "a\\b.npy"), {"read_npz", "a backslash"});
}

// No single-byte corruption loads data other than what was written: every
// flip is refused or (timestamps, versions, attributes the format ignores)
// reads back the very same arrays.
TEST(Npz, NoByteFlipLoadsDifferentData) {
  const std::string good = temp_path_in("nabla_npz_test", "same_src.npz");
  write_npz(good, {{"a", arange(3).to(kFloat32)}, {"b", tensor(std::vector<int64_t>{1, 2})}});
  const std::string bytes = file_bytes(good), path = temp_path_in("nabla_npz_test", "same.npz");
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    for (int mask : {0x01, 0x80, 0xFF}) {
      std::string b = bytes;
      b[i] = static_cast<char>(b[i] ^ mask);
      spit(path, b);
      NpzArrays got;
      try {
        got = read_npz(path);
      } catch (const Error&) {
        continue;
      }
      ASSERT_EQ(got.size(), 2u) << "byte " << i;
      EXPECT_EQ(got[0].first, "a") << "byte " << i;
      EXPECT_EQ(got[1].first, "b") << "byte " << i;
      EXPECT_EQ(double_values(got[0].second), (std::vector<double>{0, 1, 2})) << "byte " << i;
      EXPECT_EQ(got[1].second.dtype(), kInt64) << "byte " << i;
      EXPECT_EQ(double_values(got[1].second), (std::vector<double>{1, 2})) << "byte " << i;
    }
  }
}

}  // namespace
}  // namespace nabla::data

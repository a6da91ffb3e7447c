// .npz archives (nabla/data/npz.h): round trips, archives written by NumPy
// (stored and deflate members with ZIP64 local headers: fixtures/, made by
// make_npz_fixture.py), and damaged archives refused with clear errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "nabla/nabla.h"
#include "tests/support/error_message.h"

namespace nabla::data {
namespace {

namespace fs = std::filesystem;

std::string temp_file(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("nabla_npz_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return (dir / name).string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::vector<double> values(const Tensor& t) { return t.to(kFloat64).to_vector<double>(); }

using nabla::testing::error_of;

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
  const std::string path = temp_file("round.npz");
  write_npz(path, arrays);
  NpzArrays back = read_npz(path);
  ASSERT_EQ(back.size(), arrays.size());
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    EXPECT_EQ(back[i].first, arrays[i].first);
    EXPECT_EQ(back[i].second.dtype(), arrays[i].second.dtype()) << arrays[i].first;
    EXPECT_EQ(back[i].second.sizes(), arrays[i].second.sizes()) << arrays[i].first;
    EXPECT_EQ(values(back[i].second), values(arrays[i].second)) << arrays[i].first;
  }
  write_npz(path, {});
  EXPECT_TRUE(read_npz(path).empty());
}

void expect_numpy_fixture(const std::string& file) {
  NpzArrays a = read_npz(std::string(NABLA_TESTS_DIR) + "/data/fixtures/" + file);
  ASSERT_EQ(a.size(), 9u);
  EXPECT_EQ(a[0].first, "f32");  // archive order is np.savez's keyword order
  EXPECT_EQ(find(a, "f32").sizes(), (Shape{2, 3}));
  EXPECT_EQ(values(find(a, "f32")), (std::vector<double>{0, 0.25, 0.5, 0.75, 1, 1.25}));
  EXPECT_EQ(find(a, "f64").dtype(), kFloat64);
  EXPECT_EQ(values(find(a, "f64")), (std::vector<double>{1.5, -2.25, 1e300}));
  EXPECT_EQ(find(a, "i64").to_vector<int64_t>(), (std::vector<int64_t>{-(int64_t(1) << 40), 7}));
  EXPECT_EQ(values(find(a, "u8")), (std::vector<double>{0, 255, 7}));
  EXPECT_EQ(find(a, "bool").dtype(), kBool);
  EXPECT_EQ(values(find(a, "bool")), (std::vector<double>{1, 0}));
  EXPECT_EQ(find(a, "scalar").dim(), 0);
  EXPECT_EQ(find(a, "scalar").item<float>(), 3.0f);
  EXPECT_EQ(values(find(a, "fortran")), (std::vector<double>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(values(find(a, "big_endian")), (std::vector<double>{1, 2}));
  EXPECT_EQ(find(a, "zeros").sizes(), (Shape{100, 10}));
  EXPECT_EQ(find(a, "zeros").abs().sum().item<float>(), 0.0f);
}

TEST(Npz, ReadsNumpySavez) { expect_numpy_fixture("numpy_savez.npz"); }
TEST(Npz, ReadsNumpySavezCompressed) { expect_numpy_fixture("numpy_savez_compressed.npz"); }

TEST(Npz, WriteErrors) {
  EXPECT_NE(error_of([] {
              write_npz(temp_file("dup.npz"), {{"a", zeros({1})}, {"a", zeros({2})}});
            }).find("two arrays are named 'a'"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              write_npz(temp_file("e.npz"), {{"", zeros({1})}});
            }).find("array names must be"),
            std::string::npos);
  EXPECT_THROW(write_npz(temp_file("bf.npz"), {{"x", zeros({1}, kBFloat16)}}), Error);
}

TEST(Npz, RefusesDamagedArchives) {
  const std::string good = temp_file("good.npz");
  write_npz(good, {{"x", arange(10).to(kFloat32)}, {"y", ones({2, 2})}});
  const std::string bytes = slurp(good);
  auto refused = [&](const std::string& name, const std::string& b) {
    std::string p = temp_file(name);
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
  const std::string good = temp_file("flip_src.npz");
  write_npz(good, {{"a", arange(3).to(kFloat32)}, {"b", tensor(std::vector<int64_t>{1, 2})}});
  const std::string bytes = slurp(good), path = temp_file("flip.npz");
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

}  // namespace
}  // namespace nabla::data

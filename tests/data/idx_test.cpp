// IDX reader: plain and gzip files the test writes itself, every supported
// type, and malformed or truncated files giving clear errors.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "nabla/nabla.h"
#include "tests/support/temp_files.h"

namespace nabla::data {
namespace {

using nabla::testing::temp_path_in;

using Bytes = std::vector<uint8_t>;

std::string write_file(const std::string& name, const Bytes& b, bool gzip) {
  const std::string path = temp_path_in("nabla_idx_test", name);
  if (gzip) {
    gzFile f = gzopen(path.c_str(), "wb");
    gzwrite(f, b.data(), static_cast<unsigned>(b.size()));
    gzclose(f);
  } else {
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), b.size());
  }
  return path;
}

Bytes header(uint8_t type, std::vector<uint32_t> dims) {
  Bytes b = {0, 0, type, static_cast<uint8_t>(dims.size())};
  for (uint32_t d : dims) b.insert(b.end(), {uint8_t(d >> 24), uint8_t(d >> 16), uint8_t(d >> 8), uint8_t(d)});
  return b;
}

std::string read_idx_error(const std::string& path) {
  try {
    read_idx(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Idx, ReadsUint8PlainAndGzip) {
  Bytes b = header(0x08, {2, 3, 2});
  for (int i = 0; i < 12; ++i) b.push_back(uint8_t(i * 20));
  for (bool gz : {false, true}) {
    Tensor t = read_idx(write_file(gz ? "u8.gz" : "u8", b, gz));
    EXPECT_EQ(t.dtype(), kUInt8);
    EXPECT_EQ(t.sizes(), (Shape{2, 3, 2}));
    EXPECT_EQ(t.at<uint8_t>({1, 2, 1}), 220);
    EXPECT_EQ(t.at<uint8_t>({0, 1, 0}), 40);
  }
  Tensor empty_rows = read_idx(write_file("zero", header(0x08, {0, 28, 28}), false));
  EXPECT_EQ(empty_rows.sizes(), (Shape{0, 28, 28}));
  EXPECT_EQ(read_idx(write_file("zero_mid", header(0x0D, {5, 0, 0xFFFFFFFF}), true)).sizes(),
            (Shape{5, 0, 0xFFFFFFFF}));
}

TEST(Idx, ReadsBigEndianInt32FloatDouble) {
  Bytes i32 = header(0x0C, {2});
  i32.insert(i32.end(), {0x00, 0x00, 0x01, 0x02, 0xFF, 0xFF, 0xFF, 0xFE});
  EXPECT_EQ(read_idx(write_file("i32", i32, false)).to_vector<int32_t>(), (std::vector<int32_t>{258, -2}));
  Bytes f32 = header(0x0D, {1});
  f32.insert(f32.end(), {0x3F, 0xC0, 0x00, 0x00});  // 1.5f
  EXPECT_EQ(read_idx(write_file("f32.gz", f32, true)).to_vector<float>(), (std::vector<float>{1.5f}));
  Bytes f64 = header(0x0E, {1, 1});
  f64.insert(f64.end(), {0xC0, 0x04, 0, 0, 0, 0, 0, 0});  // -2.5
  EXPECT_EQ(read_idx(write_file("f64", f64, false)).item<double>(), -2.5);
}

TEST(Idx, MalformedFilesGiveClearErrors) {
  auto has = [](const std::string& msg, const std::string& part) {
    EXPECT_NE(msg.find(part), std::string::npos) << msg;
  };
  has(read_idx_error(temp_path_in("nabla_idx_test", "missing")), "cannot open");
  has(read_idx_error(write_file("short", {0, 0}, false)), "too short");
  has(read_idx_error(write_file("magic", {1, 0, 8, 1, 0, 0, 0, 0}, false)), "magic");
  has(read_idx_error(write_file("type", header(0x0B, {1}), false)), "type code 0xb");
  has(read_idx_error(write_file("ndim", header(0x08, {}), false)), "0 dims");
  Bytes cut_header = header(0x08, {2, 3});
  cut_header.resize(9);
  has(read_idx_error(write_file("cut_header", cut_header, true)), "header needs 12 bytes");
  Bytes short_data = header(0x08, {2, 3});
  short_data.insert(short_data.end(), 5, 7);  // 5 of 6 values
  has(read_idx_error(write_file("short_data", short_data, false)), "truncated");
  has(read_idx_error(write_file("short_data.gz", short_data, true)), "truncated");
  Bytes huge = header(0x08, {0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF});  // no overflow, no huge allocation
  has(read_idx_error(write_file("huge", huge, false)), "truncated");
  Bytes extra = header(0x0C, {1});
  extra.insert(extra.end(), 6, 0);
  has(read_idx_error(write_file("extra", extra, false)), "has 6 data bytes but dims [1] need 4");
  // A gzip stream cut in the middle.
  Bytes big = header(0x08, {4096});
  for (int i = 0; i < 4096; ++i) big.push_back(uint8_t(i * 7919 >> 3));
  const std::string gz = write_file("cut.gz", big, true);
  std::filesystem::resize_file(gz, std::filesystem::file_size(gz) / 2);
  has(read_idx_error(gz), "truncated or corrupt gzip");
}

// The gzip file is inflated in memory: members written one after another
// (`cat a.gz b.gz`) are joined as gunzip joins them; other bytes after the
// last member are refused.
TEST(Idx, ConcatenatedGzipMembersAndTrailingBytes) {
  Bytes b = header(0x08, {6});
  for (int i = 0; i < 6; ++i) b.push_back(uint8_t(i + 1));
  const std::string first = write_file("first.gz", Bytes(b.begin(), b.begin() + 7), true);
  const std::string second = write_file("second.gz", Bytes(b.begin() + 7, b.end()), true);
  std::string joined_bytes;
  for (const std::string& p : {first, second}) {
    std::ifstream in(p, std::ios::binary);
    joined_bytes.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const std::string joined = temp_path_in("nabla_idx_test", "joined.gz");
  std::ofstream(joined, std::ios::binary) << joined_bytes;
  EXPECT_EQ(read_idx(joined).to_vector<uint8_t>(), (std::vector<uint8_t>{1, 2, 3, 4, 5, 6}));
  const std::string trailing = temp_path_in("nabla_idx_test", "trailing.gz");
  std::ofstream(trailing, std::ios::binary) << joined_bytes << "junk";
  const std::string msg = read_idx_error(trailing);
  EXPECT_NE(msg.find("read_idx: '" + trailing + "' has 4 unexpected bytes after its gzip stream"), std::string::npos)
      << msg;
}

TEST(Idx, LoadMnistPairsImagesAndLabels) {
  const std::string dir = std::filesystem::path(temp_path_in("nabla_idx_test", "x")).parent_path().string();
  Bytes images = header(0x08, {3, 28, 28});
  images.resize(images.size() + 3 * 28 * 28, 9);
  Bytes labels = header(0x08, {3});
  labels.insert(labels.end(), {7, 2, 1});
  write_file("t10k-images-idx3-ubyte.gz", images, true);
  write_file("t10k-labels-idx1-ubyte", labels, false);
  auto ds = load_mnist(dir, false);
  EXPECT_EQ(ds->size(), 3);
  EXPECT_EQ(ds->get(0).data.sizes(), (Shape{28, 28}));
  EXPECT_EQ(ds->get(2).target.item<int64_t>(), 1);
  EXPECT_THROW(load_mnist(dir, true), Error);
}

}  // namespace
}  // namespace nabla::data

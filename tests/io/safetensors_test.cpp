// safetensors: round trips of every dtype and shape (0-dim, empty,
// non-contiguous), metadata and odd names, the exact header layout, a file
// written by Python's `safetensors` (fixtures/, made by make_fixture.py), and
// atomic saves: a failed save leaves the previous file intact and no temp file.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

#include "nabla/nabla.h"
#include "tests/support/file_bytes.h"
#include "tests/support/temp_files.h"
#include "tests/support/tensor_values.h"

namespace nabla::io {
namespace {

namespace fs = std::filesystem;
using nabla::testing::double_values;
using nabla::testing::file_bytes;
using nabla::testing::temp_folder;

TEST(Safetensors, RoundTripsEveryDtypeAndShape) {
  TensorDict dict;
  for (DType t : {kFloat64, kFloat32, kFloat16, kBFloat16, kInt64, kInt32, kUInt8, kBool})
    for (Shape s : {Shape{}, Shape{5}, Shape{2, 3}, Shape{2, 0, 4}, Shape{1, 2, 1, 3}}) {
      int64_t n = 1;
      for (int64_t d : s) n *= d;
      dict.emplace_back(std::string(dtype_name(t)) + "_" + std::to_string(dict.size()),
                        (arange(n) - 2).to(t).reshape(IntList(s)));
    }
  const std::string path = temp_folder("nabla_st_test") + "/all.safetensors";
  save_safetensors(path, dict);
  const TensorDict back = load_safetensors(path);
  ASSERT_EQ(back.size(), dict.size());
  for (size_t i = 0; i < dict.size(); ++i) {
    EXPECT_EQ(back[i].first, dict[i].first);
    EXPECT_EQ(back[i].second.dtype(), dict[i].second.dtype()) << dict[i].first;
    EXPECT_EQ(back[i].second.sizes(), dict[i].second.sizes()) << dict[i].first;
    EXPECT_EQ(double_values(back[i].second), double_values(dict[i].second)) << dict[i].first;
  }
}

TEST(Safetensors, WritesNonContiguousTensorsInRowMajorOrder) {
  Tensor base = arange(24, dtype(kFloat32)).reshape({4, 6});
  Tensor x = base.t().slice(0, 1, 6, 2);  // [3, 4], strided
  ASSERT_FALSE(x.is_contiguous());
  const std::string path = temp_folder("nabla_st_test") + "/nc.safetensors";
  save_safetensors(path, {{"x", x}, {"e", base.expand({2, 4, 6})}});
  const TensorDict back = load_safetensors(path);
  EXPECT_EQ(double_values(get(back, "x")), double_values(x.contiguous()));
  EXPECT_EQ(get(back, "e").sizes(), (Shape{2, 4, 6}));
  EXPECT_EQ(double_values(get(back, "e")), double_values(base.expand({2, 4, 6}).contiguous()));
  EXPECT_THROW(get(back, "nope"), Error);
}

TEST(Safetensors, MetadataAndOddNamesRoundTrip) {
  const std::string path = temp_folder("nabla_st_test") + "/meta.safetensors";
  const std::string odd = "layer.0/w \"q\"\\\n\t\xc3\xbc";
  save_safetensors(path, {{odd, ones({2})}, {"", zeros({1})}}, {{"format", "pt"}, {"note", "a\"b\\c\x01"}});
  Metadata meta;
  const TensorDict back = load_safetensors(path, &meta);
  EXPECT_EQ(meta, (Metadata{{"format", "pt"}, {"note", "a\"b\\c\x01"}}));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].first, odd);
  EXPECT_EQ(back[1].first, "");
}

TEST(Safetensors, HeaderLayout) {
  const std::string path = temp_folder("nabla_st_test") + "/layout.safetensors";
  save_safetensors(path, {{"a", ones({2}, dtype(kInt32))}, {"b", zeros({}, dtype(kFloat64))}}, {{"k", "v"}});
  const std::string bytes = file_bytes(path);
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= uint64_t(uint8_t(bytes[i])) << (8 * i);
  EXPECT_EQ(n % 8, 0u);
  EXPECT_EQ(bytes.size(), 8 + n + 16);
  EXPECT_EQ(bytes.substr(8, n), R"({"__metadata__":{"k":"v"},"a":{"dtype":"I32","shape":[2],"data_offsets":[0,8]},)"
                                R"("b":{"dtype":"F64","shape":[],"data_offsets":[8,16]}}    )");
  EXPECT_EQ(bytes.substr(8 + n, 8), std::string("\x01\0\0\0\x01\0\0\0", 8));
}

TEST(Safetensors, ReadsAFileWrittenByPython) {
  Metadata meta;
  const TensorDict d = load_safetensors(std::string(NABLA_TESTS_DIR) + "/io/fixtures/python.safetensors", &meta);
  EXPECT_EQ(meta, (Metadata{{"format", "np"}, {"source", "make_fixture.py"}}));
  EXPECT_EQ(d.size(), 9u);
  EXPECT_EQ(double_values(get(d, "f64")), (std::vector<double>{1.5, -2.25}));
  EXPECT_EQ(get(d, "f32").sizes(), (Shape{2, 3}));
  EXPECT_EQ(double_values(get(d, "f32")), (std::vector<double>{0, 0.25, 0.5, 0.75, 1, 1.25}));
  EXPECT_EQ(get(d, "f16").dtype(), kFloat16);
  EXPECT_EQ(double_values(get(d, "f16")), (std::vector<double>{0.5, -1.0, 65504.0}));
  EXPECT_EQ(get(d, "i64").to_vector<int64_t>(), (std::vector<int64_t>{-(int64_t(1) << 40), 7}));
  EXPECT_EQ(get(d, "i32").to_vector<int32_t>(), (std::vector<int32_t>{-3, 4, 2147483647}));
  EXPECT_EQ(double_values(get(d, "u8")), (std::vector<double>{0, 255}));
  EXPECT_EQ(get(d, "bool").dtype(), kBool);
  EXPECT_EQ(double_values(get(d, "bool")), (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(get(d, "scalar").dim(), 0);
  EXPECT_EQ(get(d, "scalar").item<float>(), 3.0f);
  EXPECT_EQ(get(d, "empty").sizes(), (Shape{0, 3}));
}

std::string error_of_save(const std::string& path, const TensorDict& d) {
  try {
    save_safetensors(path, d);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Safetensors, SaveRefusesBadDicts) {
  const std::string path = temp_folder("nabla_st_test") + "/bad.safetensors";
  EXPECT_NE(error_of_save(path, {{"a", ones({1})}, {"a", ones({1})}}).find("'a' appears twice"), std::string::npos);
  EXPECT_NE(error_of_save(path, {{"__metadata__", ones({1})}}).find("__metadata__"), std::string::npos);
  EXPECT_NE(error_of_save(path, {{"u", Tensor()}}).find("tensor 'u' is undefined"), std::string::npos);
  EXPECT_FALSE(fs::exists(path));
}

// The names in dir: the previous file must be the only one (no temp left).
std::vector<std::string> listing(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Safetensors, FailedSavesLeaveThePreviousFileIntact) {
  const std::string dir = temp_folder("nabla_st_test") + "/atomic";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = dir + "/ckpt.safetensors";
  save_safetensors(path, {{"w", arange(4, dtype(kFloat32))}});
  const std::string before = file_bytes(path);
  const std::vector<std::string> only = {"ckpt.safetensors"};

  // Refused before the temp file is opened.
  EXPECT_THROW(save_safetensors(path, {{"w", ones({8})}, {"u", Tensor()}}), Error);
  EXPECT_EQ(file_bytes(path), before);
  EXPECT_EQ(listing(dir), only);

  // Fails mid-way: the header is written, then the data hits the file-size limit.
  struct rlimit old_limit;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old_limit;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string msg;
  try {
    save_safetensors(path, {{"w", ones({100000})}});
  } catch (const Error& e) {
    msg = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_NE(msg.find("writing"), std::string::npos) << msg;
  EXPECT_NE(msg.find("untouched"), std::string::npos) << msg;
  EXPECT_EQ(file_bytes(path), before);
  EXPECT_EQ(listing(dir), only);

  // The rename fails (the target is a directory): the temp file is removed.
  fs::create_directories(dir + "/sub");
  EXPECT_THROW(save_safetensors(dir + "/sub", {{"w", ones({2})}}), Error);
  EXPECT_EQ(listing(dir), (std::vector<std::string>{"ckpt.safetensors", "sub"}));
  EXPECT_TRUE(fs::is_empty(dir + "/sub"));

  // A directory that does not exist.
  EXPECT_THROW(save_safetensors(dir + "/missing/x.safetensors", {{"w", ones({2})}}), Error);
  EXPECT_FALSE(fs::exists(dir + "/missing"));

  // A successful save replaces the file.
  save_safetensors(path, {{"w", ones({3}, dtype(kFloat64))}});
  EXPECT_EQ(double_values(get(load_safetensors(path), "w")), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(listing(dir), (std::vector<std::string>{"ckpt.safetensors", "sub"}));
}

}  // namespace
}  // namespace nabla::io

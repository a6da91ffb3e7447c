// safetensors: malformed and truncated files are refused with a nabla::Error
// naming the file and the field, never read out of bounds. Files are built
// by hand (header JSON + data bytes) or by cutting and corrupting a good one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "nabla/nabla.h"

#include "support/temp_files.h"

namespace nabla::io {
namespace {

std::string temp_path(const std::string& name) { return testing::temp_path_in("nabla_st_bad", name); }

std::string put(const std::string& name, const std::string& bytes) {
  const std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string le64(uint64_t n) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = char(n >> (8 * i));
  return s;
}

// A file with the given header text and data bytes.
std::string st_file(const std::string& header, const std::string& data) {
  return put("f.safetensors", le64(header.size()) + header + data);
}

std::string load_error_of(const std::string& path) {
  try {
    load_safetensors(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

#define EXPECT_LOAD_ERROR(path, text)                                 \
  do {                                                                \
    const std::string msg_ = load_error_of(path);                     \
    EXPECT_NE(msg_.find(text), std::string::npos) << msg_;            \
    EXPECT_NE(msg_.find("f.safetensors"), std::string::npos) << msg_; \
  } while (0)

const std::string kF32 = R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
const std::string kData(8, '\0');

TEST(SafetensorsMalformed, AcceptsTheHandMadeBaseline) {
  const TensorDict d = load_safetensors(st_file(kF32, kData));
  EXPECT_EQ(get(d, "x").to_vector<float>(), (std::vector<float>{0, 0}));
}

TEST(SafetensorsMalformed, Truncated) {
  const std::string good = le64(kF32.size()) + kF32 + kData;
  EXPECT_LOAD_ERROR(put("f.safetensors", ""), "truncated: 0 bytes, expected at least 8");
  EXPECT_LOAD_ERROR(put("f.safetensors", good.substr(0, 5)), "truncated: 5 bytes");
  EXPECT_LOAD_ERROR(put("f.safetensors", good.substr(0, 20)),
                    "truncated: header length 54 needs 62 bytes, the file has 20");
  EXPECT_LOAD_ERROR(put("f.safetensors", good.substr(0, good.size() - 3)),
                    "field 'data_offsets': expected [begin, end]");
  // Every cut of a good file is refused cleanly.
  for (size_t n = 0; n < good.size(); ++n)
    EXPECT_THROW(load_safetensors(put("f.safetensors", good.substr(0, n))), Error);
  EXPECT_LOAD_ERROR(put("f.safetensors", "no such"), "truncated");
  EXPECT_NE(load_error_of(temp_path("missing.safetensors")).find("cannot open"), std::string::npos);
}

TEST(SafetensorsMalformed, HeaderLengthTooLarge) {
  EXPECT_LOAD_ERROR(put("f.safetensors", le64(uint64_t(1) << 40) + "{}"),
                    "header length 1099511627776 is above the limit");
  EXPECT_LOAD_ERROR(put("f.safetensors", le64(~uint64_t(0)) + "{}"), "above the limit");
  EXPECT_LOAD_ERROR(put("f.safetensors", le64(1000) + "{}"), "truncated: header length 1000");
}

TEST(SafetensorsMalformed, BadJson) {
  EXPECT_LOAD_ERROR(st_file(R"({"x":{"dtype":"F32",}})", ""), "malformed JSON at byte 20: a string key");
  EXPECT_LOAD_ERROR(st_file(R"({"x":1)", ""), "',' or '}'");
  EXPECT_LOAD_ERROR(st_file(R"({"x":true})", ""), "malformed JSON at byte 5");
  EXPECT_LOAD_ERROR(st_file(R"({"x":-1})", ""), "malformed JSON");
  EXPECT_LOAD_ERROR(st_file(R"({"x":1.5})", ""), "no fraction");
  EXPECT_LOAD_ERROR(st_file(R"({"x":99999999999999999999})", ""), "below 2^63");
  EXPECT_LOAD_ERROR(st_file(R"({"x":"a)", ""), "closing");
  EXPECT_LOAD_ERROR(st_file("{\"x\":\"a\nb\"}", ""), "control characters");
  EXPECT_LOAD_ERROR(st_file(R"({"x":"\q"})", ""), "escapes");
  EXPECT_LOAD_ERROR(st_file(R"({"x":"\ud800"})", ""), "low surrogate");
  EXPECT_LOAD_ERROR(st_file(R"({} x)", ""), "the end of the JSON text");
  EXPECT_LOAD_ERROR(st_file(std::string(40, '[') + std::string(40, ']'), ""), "nesting");
  EXPECT_LOAD_ERROR(st_file(R"([])", ""), "the header must be a JSON object, got an array");
  EXPECT_LOAD_ERROR(st_file(std::string("{\0}", 3), ""), "a string key, got byte 0x00");
}

TEST(SafetensorsMalformed, BadFields) {
  EXPECT_LOAD_ERROR(st_file(R"({"x":{"dtype":"F8","shape":[2],"data_offsets":[0,8]}})", kData),
                    "tensor 'x' field 'dtype': unsupported dtype 'F8'; expected one of F64 F32");
  EXPECT_LOAD_ERROR(
      st_file(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,16]}})", kData),
      "tensor 'x' field 'data_offsets': expected [begin, end] with begin <= end <= 8 (the size of the data "
      "section), got [0, 16]");
  EXPECT_LOAD_ERROR(st_file(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[8,4]}})", kData), "got [8, 4]");
  EXPECT_LOAD_ERROR(st_file(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0]}})", kData), "two integers");
  EXPECT_LOAD_ERROR(st_file(R"({"x":{"dtype":"F64","shape":[2],"data_offsets":[0,8]}})", kData),
                    "tensor 'x': shape [2] of F64 needs more than the 8 bytes");
  EXPECT_LOAD_ERROR(st_file(R"({"x":{"dtype":"U8","shape":[2,2],"data_offsets":[0,8]}})", kData),
                    "tensor 'x': shape [2, 2] of U8 needs 4 bytes but data_offsets [0, 8] hold 8");
  EXPECT_LOAD_ERROR(
      st_file(R"({"x":{"dtype":"U8","shape":[4294967296,4294967296,4294967296],"data_offsets":[0,8]}})", kData),
      "needs more than");
  EXPECT_LOAD_ERROR(st_file(R"({"x":{"dtype":"F32","shape":[2]}})", kData), "tensor 'x': missing field 'data_offsets'");
  EXPECT_LOAD_ERROR(st_file(R"({"x":{"dtype":"F32","shape":2,"data_offsets":[0,8]}})", kData),
                    "tensor 'x' field 'shape': expected an array, got an integer");
  EXPECT_LOAD_ERROR(st_file(R"({"x":{"dtype":"F32","shape":["2"],"data_offsets":[0,8]}})", kData), "got a string");
  EXPECT_LOAD_ERROR(st_file(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"extra":1}})", kData),
                    "unknown field 'extra'");
  EXPECT_LOAD_ERROR(st_file(R"({"x":[]})", kData), "tensor 'x': expected an object");
  EXPECT_LOAD_ERROR(st_file(R"({"__metadata__":{"k":1}})", ""), "field '__metadata__': value of 'k' must be a string");
  EXPECT_LOAD_ERROR(st_file(R"({"__metadata__":[]})", ""), "field '__metadata__': expected an object");
}

TEST(SafetensorsMalformed, OverlapsDuplicatesAndBadBools) {
  const std::string data(16, '\0');
  EXPECT_LOAD_ERROR(st_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                            R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                            data),
                    "tensors 'a' [0, 8) and 'b' [4, 12) overlap");
  EXPECT_LOAD_ERROR(st_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                            R"("a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
                            data),
                    "duplicate key \"a\"");
  EXPECT_LOAD_ERROR(st_file(R"({"b":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})", std::string("\x01\x02", 2)),
                    "tensor 'b' (BOOL) holds byte 2");
  // Empty tensors may sit anywhere.
  EXPECT_EQ(load_safetensors(st_file(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                     R"("e":{"dtype":"F32","shape":[0],"data_offsets":[4,4]}})",
                                     data.substr(0, 8)))
                .size(),
            2u);
}

TEST(SafetensorsMalformed, CorruptingAnyHeaderByteNeverCrashes) {
  const std::string path = temp_path("good.safetensors");
  save_safetensors(path, {{"a", ones({3}, dtype(kInt64))}, {"b", zeros({2, 2}, dtype(kBool))}}, {{"k", "v"}});
  std::ifstream in(path, std::ios::binary);
  const std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (size_t i = 0; i < good.size(); ++i)
    for (char c : {'\0', '"', '9', '}', ',', '\xff'}) {
      std::string bad = good;
      bad[i] = c;
      try {
        load_safetensors(put("f.safetensors", bad));
      } catch (const Error&) {
      }
    }
}

#undef EXPECT_LOAD_ERROR

}  // namespace
}  // namespace nabla::io

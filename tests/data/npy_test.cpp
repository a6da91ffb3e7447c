// .npy: round trips for every dtype, NumPy's exact header layout, Fortran
// order and big-endian files written by hand, and malformed files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>

#include "nabla/nabla.h"
#include "tests/support/file_bytes.h"
#include "tests/support/temp_files.h"

namespace nabla::data {
namespace {

using nabla::testing::file_bytes;
using nabla::testing::temp_path_in;

// A version-1.0 file with the given header dict (padded like NumPy) and data.
std::string npy_file(const std::string& name, std::string dict, const std::string& data) {
  dict.append((64 - (10 + dict.size() + 1) % 64) % 64, ' ');
  dict += '\n';
  std::string bytes =
      std::string("\x93NUMPY\x01\x00", 8) + char(dict.size() & 0xFF) + char(dict.size() >> 8) + dict + data;
  const std::string path = temp_path_in("nabla_npy_test", name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string read_npy_error(const std::string& path) {
  try {
    read_npy(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Npy, RoundTripsEveryDtypeAndShape) {
  for (DType t : {kBool, kUInt8, kInt32, kInt64, kFloat16, kFloat32, kFloat64}) {
    for (Shape s : {Shape{}, Shape{5}, Shape{2, 3}, Shape{2, 0, 4}, Shape{1, 2, 1, 3}}) {
      int64_t n = 1;
      for (int64_t d : s) n *= d;
      Tensor x = arange(n).to(t).reshape(IntList(s));
      const std::string path = temp_path_in("nabla_npy_test", "rt.npy");
      write_npy(path, t == kFloat32 && s.size() == 2 ? x.t().contiguous().t() : x);  // non-contiguous too
      Tensor y = read_npy(path);
      EXPECT_EQ(y.dtype(), t);
      EXPECT_EQ(y.sizes(), x.sizes());
      EXPECT_EQ(y.to(kFloat64).to_vector<double>(), x.to(kFloat64).to_vector<double>());
    }
  }
  EXPECT_THROW(write_npy(temp_path_in("nabla_npy_test", "bf16.npy"), ones({2}, dtype(kBFloat16))), Error);
}

TEST(Npy, WritesNumPysHeader) {
  const std::string path = temp_path_in("nabla_npy_test", "header.npy");
  write_npy(path, arange(6, dtype(kFloat32)).view({2, 3}));
  const std::string b = file_bytes(path);
  ASSERT_EQ(b.size(), 128u + 24u);
  EXPECT_EQ(b.substr(0, 10), std::string("\x93NUMPY\x01\x00\x76\x00", 10));
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  EXPECT_EQ(b.compare(10, dict.size(), dict), 0);
  EXPECT_EQ(b[127], '\n');
  write_npy(path, tensor({1.0}, dtype(kInt64)).view({1}));
  EXPECT_NE(file_bytes(path).find("'shape': (1,), }"), std::string::npos);
  write_npy(path, full({}, 3.0));
  EXPECT_NE(file_bytes(path).find("'shape': (), }"), std::string::npos);
  EXPECT_EQ(read_npy(path).item<float>(), 3.0f);
}

TEST(Npy, ReadsFortranOrderAndBigEndian) {
  std::string col_major;
  for (int32_t v : {0, 3, 1, 4, 2, 5}) col_major.append(reinterpret_cast<const char*>(&v), 4);
  Tensor f = read_npy(npy_file("f.npy", "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", col_major));
  EXPECT_EQ(f.sizes(), (Shape{2, 3}));
  EXPECT_EQ(f.to_vector<int32_t>(), (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
  Tensor be = read_npy(npy_file("be.npy", "{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }",
                                std::string("\x00\x00\x01\x02\xFF\xFF\xFF\xFE", 8)));
  EXPECT_EQ(be.to_vector<int32_t>(), (std::vector<int32_t>{258, -2}));
}

TEST(Npy, MalformedFilesGiveClearErrors) {
  auto has = [](const std::string& msg, const std::string& part) {
    EXPECT_NE(msg.find(part), std::string::npos) << msg;
  };
  const std::string ok_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  has(read_npy_error(temp_path_in("nabla_npy_test", "missing.npy")), "cannot open");
  { std::ofstream(temp_path_in("nabla_npy_test", "magic.npy"), std::ios::binary) << "PK\x03\x04 not numpy at all"; }
  has(read_npy_error(temp_path_in("nabla_npy_test", "magic.npy")), "not a .npy file");
  std::string v9 = file_bytes(npy_file("v9.npy", ok_dict, std::string(8, '\0')));
  v9[6] = 9;
  std::ofstream(temp_path_in("nabla_npy_test", "v9.npy"), std::ios::binary) << v9;
  has(read_npy_error(temp_path_in("nabla_npy_test", "v9.npy")), "format version 9");
  std::string cut = file_bytes(npy_file("cut.npy", ok_dict, ""));
  std::ofstream(temp_path_in("nabla_npy_test", "cut.npy"), std::ios::binary) << cut.substr(0, 40);
  has(read_npy_error(temp_path_in("nabla_npy_test", "cut.npy")), "truncated");
  has(read_npy_error(npy_file("c8.npy", "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", "")),
      "unsupported dtype '<c8'");
  has(read_npy_error(npy_file("noshape.npy", "{'descr': '<f4', 'fortran_order': False, }", "")), "no 'shape' key");
  has(read_npy_error(npy_file("badshape.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }", "")),
      "expected a non-negative integer in 'shape'");
  has(read_npy_error(npy_file("short.npy", ok_dict, std::string(7, '\0'))),
      "truncated: shape [2] needs more than the 7 data bytes");
  has(read_npy_error(npy_file("long.npy", ok_dict, std::string(9, '\0'))),
      "has 9 data bytes but shape [2] of '<f4' needs 8");
  has(read_npy_error(
          npy_file("huge.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999, 99999999999), }", "")),
      "truncated");
  has(read_npy_error(npy_file("bool.npy", "{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }", "\x07")),
      "bool");
}

// The header is read as NumPy reads it (a Python dict literal with exactly
// the keys descr, fortran_order, shape): forms NumPy refuses used to load
// ('[' for '{', no '}', junk after it, unknown or duplicated keys where the
// first 'descr' won).
TEST(Npy, HeaderIsParsedStrictly) {
  const std::string data(8, '\0');  // two float32 zeros
  // Accepted: NumPy's own layout, Python's other spellings.
  for (const char* ok : {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                         "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}",
                         "{\"shape\":(2,),\"fortran_order\":False,\"descr\":\"<f4\"}",
                         "{ 'descr' : '<f4' ,\n 'fortran_order' : False , 'shape' : ( 2 , ) , }",
                         "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }",
                         "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2,), }"}) {
    SCOPED_TRACE(ok);
    EXPECT_EQ(read_npy(npy_file("ok.npy", ok, data)).numel(), 2);
  }
  struct Bad {
    const char* header;
    const char* says;
  };
  for (const Bad& bad : std::initializer_list<Bad>{
           {"['descr': '<f4', 'fortran_order': False, 'shape': (2,), ]", "must start with '{'"},
           {" {'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", "must start with '{'"},
           {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), ",
            "expected a key in quotes, but the header ends"},
           {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,) 'x'}",
            "expected ',' or '}' after the value of 'shape'"},
           {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }x", "text after the closing '}'"},
           {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\t", "text after the closing '}'"},
           {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }}", "text after the closing '}'"},
           {"{'descr': '<i8', 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", "the key 'descr' twice"},
           {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'shape': (2,), }", "the key 'shape' twice"},
           {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1, }", "unknown key 'extra'"},
           {"{'descr': '<f4', 'shape': (2,), }", "no 'fortran_order' key"},
           {"{'fortran_order': False, 'shape': (2,), }", "no 'descr' key"},
           {"{descr: '<f4', 'fortran_order': False, 'shape': (2,), }", "expected a key in quotes"},
           {"{'descr' '<f4', 'fortran_order': False, 'shape': (2,), }", "expected ':' after the key 'descr'"},
           {"{'descr': <f4, 'fortran_order': False, 'shape': (2,), }", "expected a string for 'descr'"},
           {"{'descr': '<f4", "no closing quote"},
           {"{'descr': '<\\x66', 'fortran_order': False, 'shape': (2,), }", "an escape"},
           {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", "structured dtype"},
           {"{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }", "expected True or False"},
           {"{'descr': '<f4', 'fortran_order': false, 'shape': (2,), }", "expected True or False"},
           {"{'descr': '<f4', 'fortran_order': False, 'shape': (2), }", "which is an int"},
           {"{'descr': '<f4', 'fortran_order': False, 'shape': [2], }", "expected a tuple"},
           {"{'descr': '<f4', 'fortran_order': False, 'shape': (,), }", "non-negative integer"},
           {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,,), }", "non-negative integer"},
           {"{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", "non-negative integer"},
           {"{'descr': '<f4', 'fortran_order': False, 'shape': (02,), }", "leading zero"},
           {"{'descr': '<f4', 'fortran_order': False, 'shape': (2 1,), }", "expected ',' or ')'"},
           {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), ,}", "expected a key in quotes"},
           {"{,'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", "expected a key in quotes"},
       }) {
    SCOPED_TRACE(bad.header);
    // Written without NumPy's padding, so that text after '}' is exactly as given.
    std::string dict = bad.header;
    const std::string path = temp_path_in("nabla_npy_test", "bad.npy");
    std::ofstream(path, std::ios::binary)
        << std::string("\x93NUMPY\x01\x00", 8) << char(dict.size() & 0xFF) << char(dict.size() >> 8) << dict << data;
    const std::string msg = read_npy_error(path);
    EXPECT_NE(msg.find("read_npy: '" + path + "' header "), std::string::npos) << msg;
    EXPECT_NE(msg.find(bad.says), std::string::npos) << msg;
  }
  // Padding of spaces and newlines after '}' is NumPy's own.
  std::string padded = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }   \n\n";
  const std::string path = temp_path_in("nabla_npy_test", "padded.npy");
  std::ofstream(path, std::ios::binary) << std::string("\x93NUMPY\x01\x00", 8) << char(padded.size()) << char(0)
                                        << padded << data;
  EXPECT_EQ(read_npy(path).numel(), 2);
  // A minor version other than 0 is not NumPy's.
  std::string v11 = file_bytes(npy_file("v11.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", data));
  v11[7] = 1;
  std::ofstream(temp_path_in("nabla_npy_test", "v11.npy"), std::ios::binary) << v11;
  EXPECT_NE(read_npy_error(temp_path_in("nabla_npy_test", "v11.npy")).find("format version 1.1"), std::string::npos);
}

}  // namespace
}  // namespace nabla::data

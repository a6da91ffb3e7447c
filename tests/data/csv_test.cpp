// CSV reader (nabla/data/csv.h): exact values, headers, delimiters, quotes,
// CRLF, blank lines, float64; errors naming line and column.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>

#include "nabla/nabla.h"
#include "tests/support/error_message.h"
#include "tests/support/tensor_values.h"
#include "tests/support/temp_files.h"

namespace nabla::data {
namespace {

std::string write_csv(const std::string& name, const std::string& text) {
  std::string path = testing::temp_path_in("nabla_csv_test", name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

using nabla::testing::double_values;
using nabla::testing::error_of;

TEST(Csv, ReadsNumbersIntoARowsByColumnsTensor) {
  Tensor t = read_csv(write_csv("a.csv", "1,2.5,-3\n4e2, +5 ,\"6\"\n"));
  EXPECT_EQ(t.dtype(), kFloat32);
  EXPECT_EQ(t.sizes(), (Shape{2, 3}));
  EXPECT_EQ(double_values(t), (std::vector<double>{1, 2.5, -3, 400, 5, 6}));
}

TEST(Csv, HeaderDelimiterCrlfBlankLinesAndFloat64) {
  std::vector<std::string> names;
  Tensor t = read_csv(write_csv("b.csv", "\"sepal length\";width\r\n\r\n0.1;nan\r\n1e-310;-inf\r\n\n"),
                      {.header = true, .delimiter = ';', .dtype = kFloat64}, &names);
  EXPECT_EQ(names, (std::vector<std::string>{"sepal length", "width"}));
  ASSERT_EQ(t.sizes(), (Shape{2, 2}));
  auto v = double_values(t);
  EXPECT_EQ(v[0], 0.1);  // float64 keeps every digit
  EXPECT_TRUE(std::isnan(v[1]));
  EXPECT_EQ(v[2], 1e-310);
  EXPECT_EQ(v[3], -INFINITY);
  // Only a header: zero rows.
  EXPECT_EQ(read_csv(write_csv("h.csv", "a,b,c\n"), {.header = true}).sizes(), (Shape{0, 3}));
  // No newline at the end, tab delimiter.
  EXPECT_EQ(double_values(read_csv(write_csv("t.csv", "1\t2\n3\t4"), {.delimiter = '\t'})),
            (std::vector<double>{1, 2, 3, 4}));
}

TEST(Csv, ErrorsNameFileLineAndColumn) {
  const std::string bad = write_csv("bad.csv", "x,y\n1,2\n3,abc\n");
  EXPECT_EQ(error_of([&] { read_csv(bad, {.header = true}); }),
            "read_csv: '" + bad + "' line 3, column 2: 'abc' is not a number");
  const std::string ragged = write_csv("ragged.csv", "1,2,3\n\n4,5\n");
  EXPECT_EQ(error_of([&] { read_csv(ragged); }),
            "read_csv: '" + ragged + "' line 3 has 2 fields, expected 3 (as line 1): column 3 is missing");
  EXPECT_NE(error_of([&] {
              read_csv(write_csv("long.csv", "1,2\n3,4,5\n"));
            }).find("line 2 has 3 fields, expected 2 (as line 1): column 3 is extra"),
            std::string::npos);
  const std::string empty_field = write_csv("e.csv", "1,,3\n");
  EXPECT_NE(error_of([&] { read_csv(empty_field); }).find("line 1, column 2: '' is not a number"), std::string::npos);
  EXPECT_NE(error_of([&] { read_csv(write_csv("hdr.csv", "a,b\n1,2\n")); }).find("line 1, column 1: 'a'"),
            std::string::npos);  // a header without header = true
  EXPECT_NE(error_of([&] { read_csv(write_csv("none.csv", "\n\n")); }).find("has no lines"), std::string::npos);
  EXPECT_NE(error_of([] { read_csv("/nonexistent.csv"); }).find("cannot open"), std::string::npos);
  EXPECT_NE(error_of([&] { read_csv(bad, {.dtype = kInt64}); }).find("float32 or float64"), std::string::npos);
  EXPECT_NE(error_of([&] { read_csv(write_csv("sp.csv", "1 2,3\n")); }).find("'1 2' is not a number"),
            std::string::npos);
}

// One number grammar (csv.h): a doubled sign such as "+-5" read as -5 and
// "+-1e9994" as -inf; now anything outside the grammar is refused naming the
// file, line and column.
TEST(Csv, OneStrictNumberGrammar) {
  const std::string p =
      write_csv("ok.csv", "+4,-4,.5,5.,1e3,1E-3,+1.5e+2,inf,-Infinity,NAN,+nan,1e9999,-1e9999,1e-9999,-1e-9999\n");
  auto v = double_values(read_csv(p, {.dtype = kFloat64}));
  ASSERT_EQ(v.size(), 15u);
  EXPECT_EQ(std::vector<double>(v.begin(), v.begin() + 7), (std::vector<double>{4, -4, 0.5, 5, 1000, 1e-3, 150}));
  EXPECT_EQ(v[7], INFINITY);
  EXPECT_EQ(v[8], -INFINITY);
  EXPECT_TRUE(std::isnan(v[9]) && std::isnan(v[10]));
  EXPECT_EQ(v[11], INFINITY);  // out of range: as strtod and NumPy
  EXPECT_EQ(v[12], -INFINITY);
  EXPECT_EQ(v[13], 0.0);
  EXPECT_TRUE(v[14] == 0.0 && std::signbit(v[14]));
  for (const char* bad :
       {"+-5", "+-1e9994", "-+5",   "--5",  "++5",   "- 5",    "1e",      "1e+",   "e5",     ".",     "+",
        "-",   ".e1",      "1.2.3", "0x10", "1_000", "nan(1)", "infinit", "+-inf", "1,5e3x", "1e5.5", "1d5"}) {
    SCOPED_TRACE(bad);
    const std::string f = write_csv("bad.csv", std::string("0,0\n7,") + bad + "\n");
    const std::string msg = error_of([&] { read_csv(f); });
    if (std::string(bad) == "1,5e3x") {  // three fields
      EXPECT_NE(msg.find("line 2 has 3 fields"), std::string::npos) << msg;
      continue;
    }
    EXPECT_EQ(msg, "read_csv: '" + f + "' line 2, column 2: '" + bad + "' is not a number");
  }
}

}  // namespace
}  // namespace nabla::data

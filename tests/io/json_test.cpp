// The strict header JSON reader: the accepted subset, escapes and quoting.
#include "nabla/io/json.h"

#include <gtest/gtest.h>

#include "nabla/core/error.h"

namespace nabla::io {
namespace {

TEST(Json, ParsesTheHeaderSubset) {
  const JsonValue v = parse_json(R"( {"a": [1, 0, 9223372036854775807], "b": {"c": "d"}, "e": []}   )", "t");
  ASSERT_EQ(v.kind, JsonValue::Kind::Object);
  ASSERT_EQ(v.keys, (std::vector<std::string>{"a", "b", "e"}));
  EXPECT_EQ(v.items[0].items[2].integer, INT64_MAX);
  EXPECT_EQ(v.items[1].items[0].str, "d");
  EXPECT_TRUE(v.items[2].items.empty());
}

TEST(Json, EscapesRoundTrip) {
  EXPECT_EQ(parse_json(R"("\"\\\/\b\f\n\r\t\u00fc\ud83d\ude00")", "t").str, "\"\\/\b\f\n\r\t\xc3\xbc\xf0\x9f\x98\x80");
  const std::string s = std::string("a\"b\\c\x01\n", 7) + "\xc3\xbc";
  EXPECT_EQ(json_quote(s), "\"a\\\"b\\\\c\\u0001\\u000a\xc3\xbc\"");
  EXPECT_EQ(parse_json(json_quote(s), "t").str, s);
}

TEST(Json, RefusesOutsideTheSubset) {
  for (const char* bad : {"", "{", "[1,]", "{\"a\":1,}", "01", "null", "true", "-1", "1e5", "\"\\u12\"", "\"\\udc00\"",
                          "{\"a\" 1}", "[1 2]", "{1:2}"})
    EXPECT_THROW(parse_json(bad, "t"), Error) << bad;
}

}  // namespace
}  // namespace nabla::io

// Corrupted-file sweep of io::parse_json (issue 13, acceptance 2): 300 seeded
// mutants of a JSON document like a safetensors header (nested objects and
// arrays, escapes, \u escapes with a surrogate pair, UTF-8, large integers).
// parse_json reads text, not a file: its callers name the API and the file in
// `where`, so the sweep passes "parse_json: '<path>'" and checks every error
// carries it. JSON has no checksum: a changed digit or letter in a string
// loads as a different value and is counted.
#include <gtest/gtest.h>

#include <filesystem>

#include "nabla/core/input_file.h"
#include "nabla/io/json.h"
#include "tests/support/sweep.h"

namespace nabla::io {
namespace {

using namespace nabla::testing;

std::string describe(const JsonValue& v) {
  switch (v.kind) {
    case JsonValue::Kind::String:
      return "s" + std::to_string(v.str.size()) + ":" + v.str;
    case JsonValue::Kind::Integer:
      return "i" + std::to_string(v.integer);
    case JsonValue::Kind::Array: {
      std::string out = "[";
      for (const JsonValue& item : v.items) out += describe(item) + ",";
      return out + "]";
    }
    case JsonValue::Kind::Object: {
      std::string out = "{";
      for (std::size_t i = 0; i < v.keys.size(); ++i) out += v.keys[i] + "=" + describe(v.items[i]) + ",";
      return out + "}";
    }
  }
  return "?";
}

TEST(JsonSweep, EveryMutantIsRefusedOrParses) {
  const std::string good =
      "{\"__metadata__\":{\"format\":\"pt\",\"note\":\"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\" \\\\ \\n\",\"utf8\":\"\xc3\xa9\"},"
      "\"w\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]},"
      "\"big\":{\"dtype\":\"I64\",\"shape\":[],\"data_offsets\":[24,9223372036854775807]},"
      "\"nested\":[[[]],{},[1,[2,[3]]]]}   ";
  MutatorSpec spec;
  for (std::size_t p = 0; p < good.size();) {
    const std::size_t start = p;
    while (p < good.size() && good[p] >= '0' && good[p] <= '9') ++p;
    if (p > start)
      spec.fields.push_back({"number at " + std::to_string(start), start, p - start, FieldKind::Decimal});
    else
      ++p;
  }
  for (std::size_t p = 0; p < good.size(); ++p)
    if (std::string("{}[]:,\"\\").find(good[p]) != std::string::npos)
      spec.fields.push_back({std::string("'") + good[p] + "' at " + std::to_string(p), p, 1, FieldKind::Tag,
                             {"{", "}", "[", "]", ":", ",", "\"", "\\", "", " ", "\x01", "nul", "true", "-"}});
  const std::string dir = sweep_dir("json");
  SweepCase c{"parse_json", "parse_json", dir + "/mutant.json", /*checked=*/false,
              [](const std::string& path) {
                return describe(parse_json(read_file(path, "parse_json"), "parse_json: '" + path + "'"));
              },
              {}};
  const SweepTally t = run_sweep(c, good, make_mutants(good, spec, /*seed=*/1315, mutant_count(300)));
  EXPECT_GT(t.refused, 200);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace nabla::io

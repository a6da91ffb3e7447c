// ConfigReader: reads one JSON object of a config file (nlohmann::json) field
// by field, validating each: a wrong type, a value out of range, a missing
// required field or a field nobody asked for raises nabla::Error naming the
// file, the field path (`layers[3].out_features`), what was given and what is
// allowed. nn::from_config and `nabla train --config` read their files with it.
//
//   ConfigReader r(json, "experiment.json", "model");
//   int64_t n = r.integer("out_features", 1);          // required, >= 1
//   bool bias = r.boolean("bias", true);               // optional, default true
//   r.finish();                                        // unknown fields are errors
#pragma once
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nabla::nn {

// Ordered: configs print with their fields in the order they were written.
using Json = nlohmann::ordered_json;

// Parses `text` as JSON; a syntax error names `where` (the file) with the
// line and column.
Json parse_json_config(const std::string& text, const std::string& where);
// Reads and parses the file at `path` (errors name it).
Json read_json_config(const std::string& path);

class ConfigReader {
 public:
  // `value` must be an object; `path` is its field path ("" for the root).
  ConfigReader(const Json& value, std::string where, std::string path, std::string what = "a config object");

  const std::string& where() const { return where_; }
  const std::string& path() const { return path_; }
  // The path of a field of this object ("layers[3].bias").
  std::string field_path(const std::string& key) const;
  bool has(const std::string& key) const { return value_.contains(key); }
  // The raw value of a field (marked as read), or nullptr when absent.
  const Json* get(const std::string& key);

  // Required (no default) and optional fields. Integers must be JSON integers
  // (3.0 is refused), numbers may be either; lo/hi are inclusive bounds.
  int64_t integer(const std::string& key, int64_t lo = INT64_MIN, int64_t hi = INT64_MAX,
                  std::optional<int64_t> fallback = std::nullopt);
  std::optional<int64_t> optional_integer(const std::string& key, int64_t lo, int64_t hi);  // absent or null: none
  double number(const std::string& key, double lo, double hi, std::optional<double> fallback = std::nullopt,
                bool lo_open = false);
  std::optional<double> optional_number(const std::string& key, double lo, double hi, std::optional<double> fallback);
  bool boolean(const std::string& key, std::optional<bool> fallback = std::nullopt);
  std::string string(const std::string& key, std::optional<std::string> fallback = std::nullopt);
  std::string choice(const std::string& key, const std::vector<std::string>& allowed,
                     std::optional<std::string> fallback = std::nullopt);
  // An integer or a list of integers (each >= lo); a single integer is
  // repeated `repeat` times when repeat > 0 (kernel_size: 3 or [3, 3]).
  std::vector<int64_t> int_list(const std::string& key, int64_t lo, std::size_t repeat,
                                std::optional<std::vector<int64_t>> fallback = std::nullopt);
  // A required field that must be an array / an object.
  const Json& array(const std::string& key);
  const Json& object(const std::string& key, const Json* fallback = nullptr);

  // Raises an error for the field `key`: "<where>: <path>: got <given>, expected <expected>".
  [[noreturn]] void bad(const std::string& key, const std::string& expected) const;
  // Raises an error naming this object's path: "<where>: <path>: <message>".
  [[noreturn]] void error(const std::string& message) const;
  // Every field present but never read is an error listing the allowed ones.
  void finish(const std::string& owner) const;

 private:
  const Json& required(const std::string& key);
  const Json& value_;
  std::string where_, path_;
  std::set<std::string> read_, asked_;
};

// A JSON value as it reads in an error message (strings quoted, long values cut).
std::string json_for_message(const Json& value);

}  // namespace nabla::nn

// A small strict JSON reader and string quoting, for file headers
// (safetensors). Only the subset such headers use is accepted: objects,
// arrays, strings (all escapes, \uXXXX with surrogate pairs, UTF-8 passed
// through) and non-negative integers up to 2^63-1. true/false/null,
// negative or fractional numbers, duplicate keys, trailing commas, control
// characters in strings and nesting deeper than 32 are refused with a
// nabla::Error naming `where` and the byte offset. Trailing whitespace is
// allowed (safetensors pads its header with spaces); anything else is not.
//
// Ordinary JSON files (model and training configs) are read with nlohmann/json
// instead (nn/config_reader.h). This reader stays for file headers: its
// refusals (duplicate keys, which nlohmann keeps silently, values outside the
// subset, deep nesting) each carry a byte offset, which nlohmann 3.11's SAX
// callbacks cannot give, and the fuzz target and corrupted-file sweep pin it.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nabla::io {

struct JsonValue {
  enum class Kind { Object, Array, String, Integer };
  Kind kind = Kind::Object;
  std::string str;                // String
  int64_t integer = 0;            // Integer
  std::vector<std::string> keys;  // Object: keys in file order, unique
  std::vector<JsonValue> items;   // Object values (parallel to keys) or Array items

  const char* kind_name() const;  // "object", "array", "string", "integer"
};

JsonValue parse_json(std::string_view text, const std::string& where);
std::string json_quote(std::string_view s);  // "..." with JSON escapes

}  // namespace nabla::io

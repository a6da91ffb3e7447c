// libFuzzer target: io::parse_json (the safetensors header parser) on
// arbitrary text. Every string it accepts must survive json_quote + parse
// unchanged (the writer's side of the same format).
#include <cstdio>
#include <string_view>

#include "fuzz/fuzz_input.h"
#include "nabla/io/json.h"

namespace {

void check_requote(const std::string& s) {
  const nabla::io::JsonValue back = nabla::io::parse_json(nabla::io::json_quote(s), "requoted string");
  if (back.kind != nabla::io::JsonValue::Kind::String || back.str != s) {
    std::fprintf(stderr, "json_quote + parse_json changed a string of %zu bytes\n", s.size());
    std::abort();
  }
}

void check_strings(const nabla::io::JsonValue& v) {
  if (v.kind == nabla::io::JsonValue::Kind::String) check_requote(v.str);
  for (const std::string& key : v.keys) check_requote(key);
  for (const nabla::io::JsonValue& item : v.items) check_strings(item);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nabla;
  io::JsonValue v;
  bool parsed = false;
  fuzz::refused_or_read([&] {
    v = io::parse_json(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz input");
    parsed = true;
  });
  if (parsed) check_strings(v);  // outside: a refusal here is a finding
  return 0;
}

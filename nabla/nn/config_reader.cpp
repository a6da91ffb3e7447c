// See config_reader.h.
#include "nabla/nn/config_reader.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "nabla/core/error.h"

namespace nabla::nn {
namespace {

std::string join(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string type_name(const Json& v) {
  if (v.is_number_integer()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_boolean()) return "a boolean";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "null";
}

std::string range_text(int64_t lo, int64_t hi) {
  if (lo == INT64_MIN && hi == INT64_MAX) return "an integer";
  if (hi == INT64_MAX) return detail::concat("an integer >= ", lo);
  if (lo == INT64_MIN) return detail::concat("an integer <= ", hi);
  return detail::concat("an integer in [", lo, ", ", hi, "]");
}

}  // namespace

std::string json_for_message(const Json& value) {
  std::string s = value.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

Json parse_json_config(const std::string& text, const std::string& where) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    // nlohmann's own text says where ("at line 3, column 7") and what it met.
    std::string what = e.what();
    if (auto p = what.find("parse error"); p != std::string::npos) what = what.substr(p);
    fail(where, ": not valid JSON: ", what);
  }
}

Json read_json_config(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  NABLA_CHECK(in.good(), path, ": cannot open the config file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_json_config(text.str(), path);
}

ConfigReader::ConfigReader(const Json& value, std::string where, std::string path, std::string what)
    : value_(value), where_(std::move(where)), path_(std::move(path)) {
  if (!value_.is_object())
    fail(where_, ": ", path_.empty() ? "the top level" : path_, ": got ", json_for_message(value_), " (",
         type_name(value_), "), expected ", what);
}

std::string ConfigReader::field_path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

const Json* ConfigReader::get(const std::string& key) {
  asked_.insert(key);
  auto it = value_.find(key);
  if (it == value_.end()) return nullptr;
  read_.insert(key);
  return &*it;
}

const Json& ConfigReader::required(const std::string& key) {
  const Json* v = get(key);
  if (v) return *v;
  // A misspelt field is the usual cause: name the fields not understood so far.
  std::string others;
  for (auto it = value_.begin(); it != value_.end(); ++it)
    if (!asked_.count(it.key())) others += (others.empty() ? "'" : ", '") + it.key() + "'";
  error("missing the required field '" + key + "'" + (others.empty() ? "" : " (not understood here: " + others + ")"));
}

void ConfigReader::bad(const std::string& key, const std::string& expected) const {
  auto it = value_.find(key);
  std::string given = it == value_.end() ? "nothing" : json_for_message(*it) + " (" + type_name(*it) + ")";
  fail(where_, ": ", field_path(key), ": got ", given, ", expected ", expected);
}

void ConfigReader::error(const std::string& message) const {
  fail(where_, ": ", path_.empty() ? "the top level" : path_, ": ", message);
}

int64_t ConfigReader::integer(const std::string& key, int64_t lo, int64_t hi, std::optional<int64_t> fallback) {
  const Json* v = get(key);
  if (!v && fallback) return *fallback;
  if (!v) required(key);
  if (!v->is_number_integer()) bad(key, range_text(lo, hi));
  if (v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) bad(key, range_text(lo, hi));
  int64_t x = v->get<int64_t>();
  if (x < lo || x > hi) bad(key, range_text(lo, hi));
  return x;
}

std::optional<int64_t> ConfigReader::optional_integer(const std::string& key, int64_t lo, int64_t hi) {
  const Json* v = get(key);
  if (!v || v->is_null()) return std::nullopt;
  int64_t x = 0;
  bool fits = v->is_number_integer() && !(v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX));
  if (fits) x = v->get<int64_t>();
  if (!fits || x < lo || x > hi) bad(key, range_text(lo, hi) + " or null");
  return x;
}

double ConfigReader::number(const std::string& key, double lo, double hi, std::optional<double> fallback,
                            bool lo_open) {
  const Json* v = get(key);
  if (!v && fallback) return *fallback;
  if (!v) required(key);
  std::string expected = detail::concat("a number ", lo_open ? "> " : ">= ", lo);
  if (hi < 1e300) expected = detail::concat("a number in ", lo_open ? "(" : "[", lo, ", ", hi, "]");
  if (!v->is_number()) bad(key, expected);
  double x = v->get<double>();
  if (!(lo_open ? x > lo : x >= lo) || !(x <= hi)) bad(key, expected);
  return x;
}

std::optional<double> ConfigReader::optional_number(const std::string& key, double lo, double hi,
                                                    std::optional<double> fallback) {
  const Json* v = get(key);
  if (!v) return fallback;
  if (v->is_null()) return std::nullopt;
  if (!v->is_number()) bad(key, detail::concat("a number in [", lo, ", ", hi, "] or null"));
  return number(key, lo, hi);
}

bool ConfigReader::boolean(const std::string& key, std::optional<bool> fallback) {
  const Json* v = get(key);
  if (!v && fallback) return *fallback;
  if (!v) required(key);
  if (!v->is_boolean()) bad(key, "true or false");
  return v->get<bool>();
}

std::string ConfigReader::string(const std::string& key, std::optional<std::string> fallback) {
  const Json* v = get(key);
  if (!v && fallback) return *fallback;
  if (!v) required(key);
  if (!v->is_string() || v->get<std::string>().empty()) bad(key, "a non-empty string");
  return v->get<std::string>();
}

std::string ConfigReader::choice(const std::string& key, const std::vector<std::string>& allowed,
                                 std::optional<std::string> fallback) {
  const Json* v = get(key);
  if (!v && fallback) return *fallback;
  if (!v) required(key);
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + ("\"" + a + "\"");
  if (v->is_string())
    for (const auto& a : allowed)
      if (v->get<std::string>() == a) return a;
  bad(key, "one of " + list);
}

std::vector<int64_t> ConfigReader::int_list(const std::string& key, int64_t lo, std::size_t repeat,
                                            std::optional<std::vector<int64_t>> fallback) {
  const Json* v = get(key);
  if (!v && fallback) return *fallback;
  if (!v) required(key);
  std::string expected = repeat > 0 ? detail::concat("an integer >= ", lo, " or a list of ", repeat, " such integers")
                                    : detail::concat("an integer >= ", lo, " or a non-empty list of such integers");
  auto ok = [&](const Json& x) {
    if (!x.is_number_integer()) return false;
    if (x.is_number_unsigned() && x.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) return false;
    return x.get<int64_t>() >= lo;
  };
  if (v->is_number_integer()) {
    if (!ok(*v)) bad(key, expected);
    return std::vector<int64_t>(repeat > 0 ? repeat : 1, v->get<int64_t>());
  }
  if (!v->is_array() || v->empty() || (repeat > 0 && v->size() != repeat)) bad(key, expected);
  std::vector<int64_t> out;
  for (const Json& x : *v) {
    if (!ok(x)) bad(key, expected);
    out.push_back(x.get<int64_t>());
  }
  return out;
}

const Json& ConfigReader::array(const std::string& key) {
  const Json& v = required(key);
  if (!v.is_array()) bad(key, "an array");
  return v;
}

const Json& ConfigReader::object(const std::string& key, const Json* fallback) {
  const Json* v = get(key);
  if (!v && fallback) return *fallback;
  if (!v) required(key);
  if (!v->is_object()) bad(key, "an object");
  return *v;
}

void ConfigReader::finish(const std::string& owner) const {
  for (auto it = value_.begin(); it != value_.end(); ++it) {
    if (read_.count(it.key())) continue;
    std::set<std::string> allowed = asked_;
    fail(where_, ": ", field_path(it.key()), ": unknown field of ", owner, "; allowed: ",
         allowed.empty() ? std::string("none") : join(allowed));
  }
}

}  // namespace nabla::nn

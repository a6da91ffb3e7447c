// Strict JSON reader for the header subset (see json.h): recursive descent
// over a string_view, every access bounds-checked.
#include "nabla/io/json.h"

#include <cstdio>

#include "nabla/core/error.h"

namespace nabla::io {

namespace {

constexpr int kMaxDepth = 32;

class Parser {
 public:
  Parser(std::string_view s, const std::string& where) : s_(s), where_(where) {}

  JsonValue document() {
    JsonValue v = value(0);
    skip_ws();
    if (p_ != s_.size()) error("expected the end of the JSON text");
    return v;
  }

 private:
  [[noreturn]] void error(const char* expected) const {
    char got[32] = "the end of the text";
    if (p_ < s_.size()) {
      const auto c = static_cast<unsigned char>(s_[p_]);
      if (c >= 0x20 && c < 0x7F)
        std::snprintf(got, sizeof got, "'%c'", c);
      else
        std::snprintf(got, sizeof got, "byte 0x%02x", c);
    }
    fail(where_, ": malformed JSON at byte ", p_, ": ", expected, ", got ", got);
  }
  void skip_ws() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\t' || s_[p_] == '\n' || s_[p_] == '\r')) ++p_;
  }
  bool eat(char c) {
    skip_ws();
    if (p_ < s_.size() && s_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }

  JsonValue value(int depth) {
    if (depth > kMaxDepth) error("nesting of at most 32 levels");
    skip_ws();
    if (p_ >= s_.size()) error("a value");
    const char c = s_[p_];
    JsonValue v;
    if (c == '{') {
      ++p_;
      v.kind = JsonValue::Kind::Object;
      if (eat('}')) return v;
      do {
        skip_ws();
        if (p_ >= s_.size() || s_[p_] != '"') error("a string key");
        const size_t key_at = p_;
        std::string key = string();
        for (const std::string& k : v.keys)
          if (k == key) fail(where_, ": duplicate key ", json_quote(key), " at byte ", key_at);
        if (!eat(':')) error("':'");
        v.keys.push_back(std::move(key));
        v.items.push_back(value(depth + 1));
      } while (eat(','));
      if (!eat('}')) error("',' or '}'");
    } else if (c == '[') {
      ++p_;
      v.kind = JsonValue::Kind::Array;
      if (eat(']')) return v;
      do v.items.push_back(value(depth + 1));
      while (eat(','));
      if (!eat(']')) error("',' or ']'");
    } else if (c == '"') {
      v.kind = JsonValue::Kind::String;
      v.str = string();
    } else if (c >= '0' && c <= '9') {
      v.kind = JsonValue::Kind::Integer;
      v.integer = integer();
    } else {
      error("an object, array, string or non-negative integer (the subset a file header uses)");
    }
    return v;
  }

  int64_t integer() {
    if (s_[p_] == '0' && p_ + 1 < s_.size() && s_[p_ + 1] >= '0' && s_[p_ + 1] <= '9') error("no leading zeros");
    int64_t v = 0;
    while (p_ < s_.size() && s_[p_] >= '0' && s_[p_] <= '9') {
      const int d = s_[p_] - '0';
      if (v > (INT64_MAX - d) / 10) error("an integer below 2^63");
      v = v * 10 + d;
      ++p_;
    }
    if (p_ < s_.size() && (s_[p_] == '.' || s_[p_] == 'e' || s_[p_] == 'E'))
      error("an integer (no fraction or exponent)");
    return v;
  }

  unsigned hex4() {
    unsigned u = 0;
    for (int i = 0; i < 4; ++i, ++p_) {
      if (p_ >= s_.size()) error("4 hex digits after \\u");
      const char h = s_[p_];
      const int d = h >= '0' && h <= '9'   ? h - '0'
                    : h >= 'a' && h <= 'f' ? h - 'a' + 10
                    : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                           : -1;
      if (d < 0) error("4 hex digits after \\u");
      u = u * 16 + static_cast<unsigned>(d);
    }
    return u;
  }

  static void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }

  std::string string() {
    ++p_;  // opening quote
    std::string out;
    for (;;) {
      if (p_ >= s_.size()) error("a closing '\"'");
      const char c = s_[p_];
      if (c == '"') {
        ++p_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) error("no control characters inside a string");
      if (c != '\\') {
        out += c;
        ++p_;
        continue;
      }
      if (++p_ >= s_.size()) error("an escape after '\\'");
      const char e = s_[p_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (p_ + 1 >= s_.size() || s_[p_] != '\\' || s_[p_ + 1] != 'u') error("a low surrogate \\uDC00-\\uDFFF");
            p_ += 2;
            const unsigned lo = hex4();
            if (lo < 0xDC00 || lo > 0xDFFF) error("a low surrogate \\uDC00-\\uDFFF");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            error("a high surrogate before a low one");
          }
          append_utf8(out, cp);
          break;
        }
        default:
          --p_;
          error("one of the escapes \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u");
      }
    }
  }

  std::string_view s_;
  const std::string& where_;
  size_t p_ = 0;
};

}  // namespace

const char* JsonValue::kind_name() const {
  switch (kind) {
    case Kind::Object:
      return "object";
    case Kind::Array:
      return "array";
    case Kind::String:
      return "string";
    case Kind::Integer:
      break;
  }
  return "integer";
}

JsonValue parse_json(std::string_view text, const std::string& where) { return Parser(text, where).document(); }

std::string json_quote(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + '"';
}

}  // namespace nabla::io

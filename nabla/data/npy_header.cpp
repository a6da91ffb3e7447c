// Strict parser of the .npy header dict (see npy_header.h): a small
// recursive-descent reader over the header text, one position, no backtracking.
#include "nabla/data/npy_header.h"

#include "nabla/core/error.h"

namespace nabla::data {
namespace {

class Parser {
 public:
  Parser(const std::string& h, const std::string& where) : h_(h), where_(where) {}

  NpyHeader parse() {
    NpyHeader out;
    bool seen_descr = false, seen_fortran = false, seen_shape = false;
    expect('{', "the header must start with '{' (a Python dict)");
    for (;;) {
      skip_space();
      if (peek() == '}') break;
      const std::size_t key_at = p_;
      const std::string key = string("a key in quotes");
      const auto once = [&](bool& seen) {
        if (seen) fail_at(key_at, "has the key '" + key + "' twice");
        seen = true;
      };
      skip_space();
      expect(':', "expected ':' after the key '" + key + "'");
      skip_space();
      if (key == "descr") {
        once(seen_descr);
        if (peek() == '[') fail_here("has a structured dtype (a list in 'descr'); nabla reads plain dtypes only");
        out.descr = string("a string for 'descr'");
      } else if (key == "fortran_order") {
        once(seen_fortran);
        out.fortran_order = boolean();
      } else if (key == "shape") {
        once(seen_shape);
        out.shape = tuple();
      } else {
        fail_at(key_at, "has an unknown key '" + key + "'; expected exactly 'descr', 'fortran_order' and 'shape'");
      }
      skip_space();
      if (peek() == ',') {
        ++p_;
        continue;
      }
      if (peek() != '}') fail_here("expected ',' or '}' after the value of '" + key + "'");
    }
    ++p_;  // '}'
    for (; p_ < h_.size(); ++p_)
      if (h_[p_] != ' ' && h_[p_] != '\n') fail_here("has text after the closing '}'; expected only space padding");
    if (!seen_descr || !seen_fortran || !seen_shape)
      fail_at(p_, std::string("has no '") +
                      (!seen_descr     ? "descr"
                       : !seen_fortran ? "fortran_order"
                                       : "shape") +
                      "' key; expected exactly 'descr', 'fortran_order' and 'shape'");
    return out;
  }

 private:
  char peek() const { return p_ < h_.size() ? h_[p_] : '\0'; }
  void skip_space() {
    while (p_ < h_.size() && (h_[p_] == ' ' || h_[p_] == '\t' || h_[p_] == '\n' || h_[p_] == '\r')) ++p_;
  }
  void expect(char c, const std::string& what) {
    if (peek() != c || p_ >= h_.size()) fail_here(what);
    ++p_;
  }

  [[noreturn]] void fail_at(std::size_t at, const std::string& what) const {
    std::string shown = h_.size() > 200 ? h_.substr(0, 200) + "..." : h_;
    for (char& c : shown)
      if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    fail("read_npy: '", where_, "' header ", what, " (at character ", at, " of ", shown, ")");
  }
  [[noreturn]] void fail_here(const std::string& what) const {
    fail_at(p_, p_ >= h_.size() ? what + ", but the header ends" : what);
  }

  // 'text' or "text", without escapes.
  std::string string(const char* what) {
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail_here(std::string("expected ") + what);
    const std::size_t end = h_.find(quote, p_ + 1);
    if (end == std::string::npos) fail_here("has a string with no closing quote");
    std::string s = h_.substr(p_ + 1, end - p_ - 1);
    if (s.find('\\') != std::string::npos) fail_here("has a string with an escape; expected plain text");
    if (s.find('\n') != std::string::npos) fail_here("has a string that spans lines");
    p_ = end + 1;
    return s;
  }

  bool boolean() {
    if (h_.compare(p_, 4, "True") == 0) return p_ += 4, true;
    if (h_.compare(p_, 5, "False") == 0) return p_ += 5, false;
    fail_here("expected True or False for 'fortran_order'");
  }

  // A non-negative Python int literal: 0 or digits without a leading zero.
  int64_t integer() {
    const std::size_t start = p_;
    if (!(peek() >= '0' && peek() <= '9')) fail_here("expected a non-negative integer in 'shape'");
    int64_t v = 0;
    while (peek() >= '0' && peek() <= '9') {
      if (v >= (int64_t(1) << 50)) fail_at(start, "has a dimension too large in 'shape'");
      v = v * 10 + (h_[p_++] - '0');
    }
    if (h_[start] == '0' && p_ - start > 1) fail_at(start, "has an integer with a leading zero in 'shape'");
    return v;
  }

  // () | (n,) | (n, m[, ...])[,] — `(n)` is an int in Python, not a tuple.
  std::vector<int64_t> tuple() {
    expect('(', "expected a tuple such as (3, 4) for 'shape'");
    std::vector<int64_t> dims;
    skip_space();
    if (peek() == ')') return ++p_, dims;
    for (;;) {
      dims.push_back(integer());
      skip_space();
      if (peek() == ')') {
        if (dims.size() == 1) fail_here("has '(n)' for 'shape', which is an int; a 1-D shape is written (n,)");
        return ++p_, dims;
      }
      expect(',', "expected ',' or ')' in 'shape'");
      skip_space();
      if (peek() == ')') return ++p_, dims;
    }
  }

  const std::string& h_;
  const std::string& where_;
  std::size_t p_ = 0;
};

}  // namespace

NpyHeader parse_npy_header(const std::string& header, const std::string& where) {
  return Parser(header, where).parse();
}

}  // namespace nabla::data

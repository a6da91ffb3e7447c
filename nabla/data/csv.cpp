// See csv.h. One pass over the file's bytes; values are parsed as double
// (std::from_chars: exact, locale-independent) and converted once at the end.
#include "nabla/data/csv.h"

#include <locale.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <string_view>

#include "nabla/core/error.h"
#include "nabla/core/input_file.h"
#include "nabla/ops/factory.h"

namespace nabla::data {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return s;
}

std::vector<std::string_view> split(std::string_view line, char delimiter) {
  std::vector<std::string_view> fields;
  for (std::size_t start = 0;;) {
    std::size_t end = line.find(delimiter, start);
    fields.push_back(trim(line.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start)));
    if (end == std::string_view::npos) return fields;
    start = end + 1;
  }
}

bool digit(char c) { return c >= '0' && c <= '9'; }

bool equals_lower(std::string_view s, std::string_view lower) {
  if (s.size() != lower.size()) return false;
  for (std::size_t i = 0; i < s.size(); ++i)
    if ((s[i] >= 'A' && s[i] <= 'Z' ? char(s[i] - 'A' + 'a') : s[i]) != lower[i]) return false;
  return true;
}

// The one number grammar of read_csv (csv.h):
//   [+|-] ( digits [. [digits]] | . digits ) [ (e|E) [+|-] digits ]
//   [+|-] ( inf | infinity | nan )                    in any letter case
// Checked here first because std::from_chars also takes "nan(...)" and,
// after a '+' is stripped for it, a second sign ("+-5").
bool is_number(std::string_view s) {
  std::size_t p = 0;
  if (p < s.size() && (s[p] == '+' || s[p] == '-')) ++p;
  const std::string_view rest = s.substr(p);
  if (equals_lower(rest, "inf") || equals_lower(rest, "infinity") || equals_lower(rest, "nan")) return true;
  std::size_t digits = 0;
  while (p < s.size() && digit(s[p])) ++p, ++digits;
  if (p < s.size() && s[p] == '.') {
    ++p;
    while (p < s.size() && digit(s[p])) ++p, ++digits;
  }
  if (digits == 0) return false;
  if (p < s.size() && (s[p] == 'e' || s[p] == 'E')) {
    ++p;
    if (p < s.size() && (s[p] == '+' || s[p] == '-')) ++p;
    if (p == s.size() || !digit(s[p])) return false;
    while (p < s.size() && digit(s[p])) ++p;
  }
  return p == s.size();
}

bool parse_double(std::string_view s, double& v) {
  if (!is_number(s)) return false;
  if (s.front() == '+') s.remove_prefix(1);  // from_chars takes '-' only
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  // Out of range (from_chars leaves v alone): overflow is +-inf and underflow
  // +-0, as strtod and NumPy give; strtod_l in the "C" locale decides which.
  if (ec == std::errc::result_out_of_range) {
    static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", nullptr);
    v = strtod_l(std::string(s).c_str(), nullptr, c_locale);
    return true;
  }
  return ec == std::errc() && ptr == s.data() + s.size();
}

}  // namespace

Tensor read_csv(const std::string& path, const CsvOptions& options, std::vector<std::string>* column_names) {
  NABLA_CHECK(options.dtype == kFloat32 || options.dtype == kFloat64,
              "read_csv: dtype must be float32 or float64, got ", options.dtype);
  NABLA_CHECK(options.delimiter != '\n' && options.delimiter != '\r' && options.delimiter != '"',
              "read_csv: the delimiter cannot be a newline or a quote");
  const std::string text = read_file(path, "read_csv");

  std::vector<double> values;
  std::vector<std::string> names;
  int64_t columns = -1, rows = 0, columns_line = 0;
  bool header_pending = options.header;
  std::size_t pos = 0;
  for (int64_t line_no = 1; pos < text.size(); ++line_no) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (trim(line).empty()) continue;
    std::vector<std::string_view> fields = split(line, options.delimiter);
    const auto n = static_cast<int64_t>(fields.size());
    if (columns < 0) {
      columns = n;
      columns_line = line_no;
    }
    NABLA_CHECK(n == columns, "read_csv: '", path, "' line ", line_no, " has ", n, " fields, expected ", columns,
                " (as line ", columns_line, "): column ", std::min(n, columns) + 1,
                n < columns ? " is missing" : " is extra");
    if (header_pending) {
      header_pending = false;
      for (auto f : fields) names.emplace_back(f);
      continue;
    }
    for (int64_t c = 0; c < n; ++c) {
      double v = 0;
      NABLA_CHECK(parse_double(fields[static_cast<std::size_t>(c)], v), "read_csv: '", path, "' line ", line_no,
                  ", column ", c + 1, ": '", fields[static_cast<std::size_t>(c)], "' is not a number");
      values.push_back(v);
    }
    ++rows;
  }
  NABLA_CHECK(columns >= 0, "read_csv: '", path, "' has no lines");
  if (column_names) *column_names = std::move(names);
  return tensor(values, {rows, columns}).to(options.dtype);
}

}  // namespace nabla::data

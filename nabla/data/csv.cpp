// See csv.h. One pass over the file's bytes; values are parsed as double
// (std::from_chars: exact, locale-independent) and converted once at the end.
#include "nabla/data/csv.h"

#include <charconv>
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

bool parse_double(std::string_view s, double& v) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);  // from_chars takes '-' only
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  // Out of range: from_chars leaves v; follow strtod (inf, or 0 for underflow).
  if (ec == std::errc::result_out_of_range) {
    v = std::strtod(std::string(s).c_str(), nullptr);
    return ptr == s.data() + s.size();
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
                " (as line ", columns_line, ")");
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

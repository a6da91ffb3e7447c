// Helpers the per-reader sweeps share: a complete description of loaded
// tensors (equal descriptions = equal data) and the fields of a safetensors
// file (its 8-byte header length and the numbers and dtypes of its JSON
// header) for the mutator's targeted edits.
#pragma once
#include <algorithm>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "nabla/nabla.h"
#include "tests/support/mutator.h"

namespace nabla::testing {

// dtype, shape and every byte of `t`.
inline std::string describe(const Tensor& t) {
  std::ostringstream os;
  os << t.dtype() << '[';
  for (int64_t d = 0; d < t.dim(); ++d) os << t.size(d) << ',';
  os << "]:";
  const Tensor c = t.cpu().contiguous();
  const std::size_t n = static_cast<std::size_t>(c.numel()) * itemsize(c.dtype());
  if (n > 0) os.write(static_cast<const char*>(c.raw_data()), static_cast<std::streamsize>(n));
  return os.str();
}

template <class Named>  // a range of (name, Tensor) pairs
std::string describe_all(const Named& named) {
  std::string out;
  for (const auto& [name, t] : named) out += name + "=" + describe(t) + ";";
  return out;
}

// The fields of a safetensors file: the header length (no_repair), each number
// of 'shape' and 'data_offsets' (redundant: they must agree with each other
// and the data section), each 'dtype' (redundant when `dtype_redundant`:
// a checkpoint's dtypes must be the model's), and every other number in the
// header, such as metadata values (redundant when `redundant_number(key)`
// says so for the metadata key it belongs to).
inline std::vector<Field> safetensors_fields(const std::string& file, bool dtype_redundant,
                                             const std::function<bool(const std::string&)>& redundant_number = {}) {
  std::vector<Field> fields;
  fields.push_back({"header length", 0, 8, FieldKind::LittleEndian, {}, true, true});
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(file[static_cast<std::size_t>(i)]);
  const std::string header = file.substr(8, n);
  std::vector<bool> covered(header.size(), false);
  for (const char* key : {"\"shape\":[", "\"data_offsets\":["}) {
    for (std::size_t at = header.find(key); at != std::string::npos; at = header.find(key, at + 1)) {
      std::size_t p = at + std::strlen(key);
      // In a shape with one zero dim only that zero is redundant (the others
      // change no byte count); with two, none is.
      const std::string list = header.substr(p, header.find(']', p) - p);
      int zeros = 0;
      for (std::size_t q = 0; q <= list.size();) {
        const std::size_t comma = std::min(list.find(',', q), list.size());
        zeros += list.compare(q, comma - q, "0") == 0;
        q = comma + 1;
      }
      while (p < header.size() && header[p] != ']') {
        const std::size_t start = p;
        while (p < header.size() && header[p] >= '0' && header[p] <= '9') ++p;
        if (p > start) {
          const bool zero = header.compare(start, p - start, "0") == 0;
          const bool redundant = key[1] == 'd' || zeros == 0 || (zeros == 1 && zero);
          fields.push_back({std::string(key).substr(1, std::strlen(key) - 4) + " at " + std::to_string(8 + start),
                            8 + start, p - start, FieldKind::Decimal, {}, redundant, false, key[1] == 's' ? std::to_string(at) : ""});
          std::fill(covered.begin() + static_cast<std::ptrdiff_t>(start), covered.begin() + static_cast<std::ptrdiff_t>(p),
                    true);
        }
        if (p < header.size() && header[p] != ']') ++p;
      }
    }
  }
  const std::string dtype_key = "\"dtype\":\"";
  for (std::size_t at = header.find(dtype_key); at != std::string::npos; at = header.find(dtype_key, at + 1)) {
    const std::size_t start = at + dtype_key.size(), end = header.find('"', start);
    fields.push_back({"dtype at " + std::to_string(8 + start), 8 + start, end - start, FieldKind::Tag,
                      {"F64", "F32", "F16", "BF16", "I64", "I32", "U8", "BOOL", "I8", "F8_E4M3", ""}, dtype_redundant,
                      false});
  }
  // Other numbers (metadata values): the key is the last quoted string before ':"'.
  for (std::size_t p = 0; p < header.size();) {
    if (covered[p] || header[p] < '0' || header[p] > '9') {
      ++p;
      continue;
    }
    const std::size_t start = p;
    while (p < header.size() && header[p] >= '0' && header[p] <= '9') ++p;
    const std::size_t colon = header.rfind("\":\"", start);
    const std::size_t open = colon == std::string::npos ? std::string::npos : header.rfind('"', colon - 1);
    const std::string key = open == std::string::npos ? "" : header.substr(open + 1, colon - open - 1);
    const bool redundant = redundant_number && colon != std::string::npos && start == colon + 3 &&
                           redundant_number(key);
    fields.push_back({"'" + key + "' digits at " + std::to_string(8 + start), 8 + start, p - start,
                      FieldKind::Decimal, {}, redundant, false});
  }
  return fields;
}

// Sets the header length of an edited safetensors file so that the data
// section keeps its size (text edits change the header's length).
inline std::function<void(std::string&)> safetensors_repair(const std::string& good) {
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(good[static_cast<std::size_t>(i)]);
  const uint64_t data = good.size() - 8 - n;
  return [data](std::string& b) {
    if (b.size() < 8 + data) return;
    const uint64_t len = b.size() - 8 - data;
    for (int i = 0; i < 8; ++i) b[static_cast<std::size_t>(i)] = static_cast<char>((len >> (8 * i)) & 0xff);
  };
}

}  // namespace nabla::testing

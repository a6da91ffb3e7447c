// safetensors reader and writer (see safetensors.h). The header is parsed
// with the strict JSON reader in json.h; data is read with one seek and one
// read per tensor straight into the tensor's storage.
#include "nabla/io/safetensors.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <set>

#include "nabla/core/atomic_file.h"
#include "nabla/core/error.h"
#include "nabla/core/input_file.h"
#include "nabla/io/json.h"
#include "nabla/io/safetensors_api.h"
#include "nabla/ops/factory.h"

static_assert(std::endian::native == std::endian::little, "safetensors I/O assumes a little-endian host");

namespace nabla::io {

namespace {

constexpr uint64_t kMaxHeader = 100u << 20;  // 100 MB, as Python's safetensors
constexpr const char* kMetadataKey = "__metadata__";

struct DTypeName {
  DType dtype;
  const char* name;
};
constexpr DTypeName kDTypes[] = {{kFloat64, "F64"}, {kFloat32, "F32"}, {kFloat16, "F16"}, {kBFloat16, "BF16"},
                                 {kInt64, "I64"},   {kInt32, "I32"},   {kUInt8, "U8"},    {kBool, "BOOL"}};

const char* st_name(DType t) {
  for (const auto& d : kDTypes)
    if (d.dtype == t) return d.name;
  fail("save_safetensors: dtype ", t, " has no safetensors name");
}

// ---- writing ---------------------------------------------------------------

std::string make_header(const std::string& where, const TensorDict& tensors, const Metadata& metadata) {
  std::string h = "{";
  if (!metadata.empty()) {
    h += json_quote(kMetadataKey) + ":{";
    bool first = true;
    for (const auto& [k, v] : metadata) {
      h += (first ? "" : ",") + json_quote(k) + ":" + json_quote(v);
      first = false;
    }
    h += "}";
  }
  std::set<std::string> names;
  uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    NABLA_CHECK(name != kMetadataKey, where, ": a tensor may not be called \"__metadata__\"");
    NABLA_CHECK(names.insert(name).second, where, ": tensor name '", name, "' appears twice");
    NABLA_CHECK(t.defined(), where, ": tensor '", name, "' is undefined");
    NABLA_CHECK(!t.is_symbolic(), where, ": tensor '", name, "' is symbolic (a graph value); save concrete tensors");
    const uint64_t nbytes = static_cast<uint64_t>(t.numel()) * itemsize(t.dtype());
    if (h.size() > 1) h += ",";
    h += json_quote(name) + ":{\"dtype\":\"" + st_name(t.dtype()) + "\",\"shape\":[";
    for (int64_t d = 0; d < t.dim(); ++d) h += (d ? "," : "") + std::to_string(t.size(d));
    h += "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + nbytes) + "]}";
    offset += nbytes;
  }
  h += "}";
  h.append((8 - h.size() % 8) % 8, ' ');
  return h;
}

// ---- reading ---------------------------------------------------------------

struct Entry {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  uint64_t begin, end;
};

std::string a_kind(JsonValue::Kind k) {
  JsonValue v;
  v.kind = k;
  return (k == JsonValue::Kind::String ? "a " : "an ") + std::string(v.kind_name());
}

const JsonValue& field(const JsonValue& obj, const char* key, JsonValue::Kind kind, const std::string& where) {
  for (size_t i = 0; i < obj.keys.size(); ++i) {
    if (obj.keys[i] != key) continue;
    NABLA_CHECK(obj.items[i].kind == kind, where, " field '", key, "': expected ", a_kind(kind), ", got ",
                a_kind(obj.items[i].kind));
    return obj.items[i];
  }
  fail(where, ": missing field '", key, "'");
}

Entry parse_entry(const std::string& name, const JsonValue& v, uint64_t data_size, const std::string& file) {
  const std::string where = file + ": tensor '" + name + "'";
  NABLA_CHECK(v.kind == JsonValue::Kind::Object, where, ": expected an object {dtype, shape, data_offsets}, got ",
              a_kind(v.kind));
  for (const std::string& k : v.keys)
    NABLA_CHECK(k == "dtype" || k == "shape" || k == "data_offsets", where, ": unknown field '", k,
                "'; expected dtype, shape, data_offsets");
  Entry e{name, kFloat32, {}, 0, 0};
  const std::string& dt = field(v, "dtype", JsonValue::Kind::String, where).str;
  const DTypeName* found = nullptr;
  for (const auto& d : kDTypes)
    if (dt == d.name) found = &d;
  NABLA_CHECK(found, where, " field 'dtype': unsupported dtype '", dt,
              "'; expected one of F64 F32 F16 BF16 I64 I32 U8 BOOL");
  e.dtype = found->dtype;
  for (const JsonValue& d : field(v, "shape", JsonValue::Kind::Array, where).items) {
    NABLA_CHECK(d.kind == JsonValue::Kind::Integer, where, " field 'shape': expected non-negative integers, got ",
                a_kind(d.kind));
    e.shape.push_back(d.integer);
  }
  const JsonValue& off = field(v, "data_offsets", JsonValue::Kind::Array, where);
  NABLA_CHECK(off.items.size() == 2 && off.items[0].kind == JsonValue::Kind::Integer &&
                  off.items[1].kind == JsonValue::Kind::Integer,
              where, " field 'data_offsets': expected [begin, end] (two integers)");
  e.begin = static_cast<uint64_t>(off.items[0].integer);
  e.end = static_cast<uint64_t>(off.items[1].integer);
  NABLA_CHECK(e.begin <= e.end && e.end <= data_size, where,
              " field 'data_offsets': expected [begin, end] with begin <= end <= ", data_size,
              " (the size of the data section), got [", e.begin, ", ", e.end, "]");
  // numel * itemsize == end - begin, without overflow: stop once above the length.
  const uint64_t length = e.end - e.begin;
  const bool has_zero = std::find(e.shape.begin(), e.shape.end(), 0) != e.shape.end();
  uint64_t bytes = has_zero ? 0 : itemsize(e.dtype);
  for (int64_t d : e.shape) {
    if (has_zero) break;
    NABLA_CHECK(static_cast<uint64_t>(d) <= length / bytes, where, ": shape ", e.shape, " of ", dt,
                " needs more than the ", length, " bytes of data_offsets [", e.begin, ", ", e.end, "]");
    bytes *= static_cast<uint64_t>(d);
  }
  NABLA_CHECK(bytes == length, where, ": shape ", e.shape, " of ", dt, " needs ", bytes, " bytes but data_offsets [",
              e.begin, ", ", e.end, "] hold ", length);
  return e;
}

}  // namespace

void save_safetensors(const std::string& path, const TensorDict& tensors, const Metadata& metadata) {
  const std::string where = "save_safetensors: '" + path + "'";
  const std::string header = make_header(where, tensors, metadata);  // validates before touching the disk
  AtomicFile file(path, "save_safetensors");
  uint8_t len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<uint8_t>(static_cast<uint64_t>(header.size()) >> (8 * i));
  file.write(len, 8);
  file.write(header.data(), header.size());
  for (const auto& [name, t] : tensors) {
    const Tensor c = t.cpu().contiguous();
    const size_t nbytes = static_cast<size_t>(c.numel()) * itemsize(c.dtype());
    if (nbytes > 0) file.write(c.raw_data(), nbytes);
  }
  file.commit();
}

TensorDict load_safetensors(const std::string& path, Metadata* metadata) {
  return detail::load_safetensors_as("load_safetensors", path, metadata);
}

TensorDict detail::load_safetensors_as(const std::string& api, const std::string& path, Metadata* metadata) {
  const std::string file = ::nabla::detail::concat(api, ": '", path, "'");
  const InputFile in(path, api);
  NABLA_CHECK(in.is_regular(), file,
              " is not a regular file (a pipe or a device); safetensors files are read by offset");
  const uint64_t size = in.size();
  NABLA_CHECK(size >= 8, file, " is truncated: ", size, " bytes, expected at least 8 (the header length)");
  uint8_t len[8];
  in.read_at(0, len, 8);
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= static_cast<uint64_t>(len[i]) << (8 * i);
  NABLA_CHECK(n <= kMaxHeader, file, ": header length ", n, " is above the limit of ", kMaxHeader, " bytes");
  NABLA_CHECK(n <= size - 8, file, " is truncated: header length ", n, " needs ", n + 8, " bytes, the file has ", size);
  std::string header(n, '\0');
  in.read_at(8, header.data(), n);
  const uint64_t data_start = 8 + n, data_size = size - data_start;

  const JsonValue root = parse_json(header, file + " header");
  NABLA_CHECK(root.kind == JsonValue::Kind::Object, file, ": the header must be a JSON object, got ",
              a_kind(root.kind));
  std::vector<Entry> entries;
  Metadata meta;
  for (size_t i = 0; i < root.keys.size(); ++i) {
    const JsonValue& v = root.items[i];
    if (root.keys[i] != kMetadataKey) {
      entries.push_back(parse_entry(root.keys[i], v, data_size, file));
      continue;
    }
    NABLA_CHECK(v.kind == JsonValue::Kind::Object, file, " field '__metadata__': expected an object of strings, got ",
                a_kind(v.kind));
    for (size_t j = 0; j < v.keys.size(); ++j) {
      NABLA_CHECK(v.items[j].kind == JsonValue::Kind::String, file, " field '__metadata__': value of '", v.keys[j],
                  "' must be a string, got ", a_kind(v.items[j].kind));
      meta[v.keys[j]] = v.items[j].str;
    }
  }
  std::vector<const Entry*> by_offset;  // empty tensors overlap nothing
  for (const Entry& e : entries)
    if (e.end > e.begin) by_offset.push_back(&e);
  std::sort(by_offset.begin(), by_offset.end(), [](const Entry* a, const Entry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  // The tensors must tile the data section, as Python's safetensors requires:
  // a gap or bytes after the last tensor mean a wrong header length or
  // offsets (one byte less of header shifts every tensor by a byte).
  uint64_t covered = 0;
  for (size_t i = 0; i < by_offset.size(); ++i) {
    const Entry& b = *by_offset[i];
    if (i > 0) {
      const Entry& a = *by_offset[i - 1];
      NABLA_CHECK(b.begin >= a.end, file, ": tensors '", a.name, "' [", a.begin, ", ", a.end, ") and '", b.name,
                  "' [", b.begin, ", ", b.end, ") overlap in field 'data_offsets'; expected disjoint ranges");
    }
    NABLA_CHECK(b.begin == covered, file, ": tensor '", b.name, "' field 'data_offsets' starts at ", b.begin,
                ", expected ", covered, " (", i == 0 ? "the start of the data section" : "the end of the tensor before",
                "): the tensors must fill the data section without gaps");
    covered = b.end;
  }
  NABLA_CHECK(covered == data_size, file, ": the tensors' data_offsets end at ", covered, " but the data section has ",
              data_size, " bytes (bytes after the last tensor, or a wrong header length)");

  TensorDict out;
  out.reserve(entries.size());
  for (const Entry& e : entries) {
    Tensor t = empty(IntList(e.shape), e.dtype);
    const uint64_t nbytes = e.end - e.begin;
    if (nbytes > 0) {
      in.read_at(data_start + e.begin, t.raw_data(), nbytes);
    }
    if (e.dtype == kBool) {
      const auto* b = static_cast<const uint8_t*>(t.raw_data());
      for (uint64_t i = 0; i < nbytes; ++i)
        NABLA_CHECK(b[i] <= 1, file, ": tensor '", e.name, "' (BOOL) holds byte ", int(b[i]), "; expected 0 or 1");
    }
    out.emplace_back(e.name, std::move(t));
  }
  if (metadata) *metadata = std::move(meta);
  return out;
}

const Tensor& get(const TensorDict& dict, const std::string& name) {
  std::string names;
  for (const auto& [k, t] : dict) {
    if (k == name) return t;
    names += (names.empty() ? "" : ", ") + k;
  }
  fail("io::get: no tensor '", name, "'; the dict has: ", names.empty() ? "(none)" : names);
}

}  // namespace nabla::io

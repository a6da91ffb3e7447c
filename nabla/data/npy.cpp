// .npy reader and writer (see npy.h). The header is a Python dict literal,
// e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }, parsed
// strictly by npy_header.cpp.
#include "nabla/data/npy.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "nabla/core/atomic_file.h"
#include "nabla/core/error.h"
#include "nabla/core/input_file.h"
#include "nabla/data/npy_header.h"
#include "nabla/ops/factory.h"

namespace nabla::data {

namespace {

constexpr char kMagic[] = "\x93NUMPY";

struct Descr {
  char order;  // '<' or '>' ('|' for one-byte types)
  DType dtype;
};

Descr parse_descr(const std::string& d, const std::string& path) {
  NABLA_CHECK(d.size() == 3, "read_npy: '", path, "' has unsupported dtype '", d, "'");
  char order = d[0] == '=' ? '<' : d[0];
  const std::string code = d.substr(1);
  DType t;
  if (code == "b1")
    t = kBool;
  else if (code == "u1")
    t = kUInt8;
  else if (code == "i4")
    t = kInt32;
  else if (code == "i8")
    t = kInt64;
  else if (code == "f2")
    t = kFloat16;
  else if (code == "f4")
    t = kFloat32;
  else if (code == "f8")
    t = kFloat64;
  else
    fail("read_npy: '", path, "' has unsupported dtype '", d, "'; supported: b1 u1 i4 i8 f2 f4 f8");
  NABLA_CHECK(order == '<' || order == '>' || order == '|', "read_npy: '", path, "' has dtype '", d,
              "' with an unknown byte order");
  return {order, t};
}

}  // namespace

Tensor read_npy(const std::string& path) { return parse_npy(read_file(path, "read_npy"), path); }

Tensor parse_npy(std::string_view b, const std::string& path) {
  NABLA_CHECK(b.size() >= 10 && std::memcmp(b.data(), kMagic, 6) == 0, "read_npy: '", path,
              "' is not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<uint8_t>(b[6]);
  const int minor = static_cast<uint8_t>(b[7]);
  NABLA_CHECK(major >= 1 && major <= 3 && minor == 0, "read_npy: '", path, "' has format version ", major, ".", minor,
              "; supported: 1.0, 2.0, 3.0");
  const auto u8 = [&](size_t i) { return static_cast<size_t>(static_cast<uint8_t>(b[i])); };
  size_t header_start = 10, header_len = u8(8) | (u8(9) << 8);
  if (major >= 2) {
    NABLA_CHECK(b.size() >= 12, "read_npy: '", path, "' is truncated in its header");
    header_start = 12;
    header_len = u8(8) | (u8(9) << 8) | (u8(10) << 16) | (u8(11) << 24);
  }
  NABLA_CHECK(b.size() >= header_start + header_len, "read_npy: '", path, "' is truncated: its header needs ",
              header_start + header_len, " bytes, the file has ", b.size());
  const std::string h(b.data() + header_start, header_len);

  const NpyHeader header = parse_npy_header(h, path);
  const std::string& descr_text = header.descr;
  const Descr descr = parse_descr(descr_text, path);
  const bool fortran = header.fortran_order;
  const std::vector<int64_t>& shape = header.shape;
  NABLA_CHECK(shape.size() <= 6, "read_npy: '", path, "' has ", shape.size(), " dims; nabla tensors have at most 6");

  const size_t item = itemsize(descr.dtype);
  const size_t payload = b.size() - header_start - header_len;
  // count stays <= payload / item (no overflow); an empty array needs no bytes.
  const bool empty_array = std::find(shape.begin(), shape.end(), 0) != shape.end();
  size_t count = empty_array ? 0 : 1;
  for (int64_t s : shape) {
    if (!empty_array && static_cast<uint64_t>(s) > payload / item / count)
      fail("read_npy: '", path, "' is truncated: shape ", shape, " needs more than the ", payload,
           " data bytes it has");
    if (!empty_array) count *= static_cast<size_t>(s);
  }
  NABLA_CHECK(count * item == payload, "read_npy: '", path, "' has ", payload, " data bytes but shape ", shape, " of '",
              descr_text, "' needs ", count * item);
  std::vector<int64_t> stored = shape;  // Fortran order: the transpose is stored in C order
  if (fortran) std::reverse(stored.begin(), stored.end());
  Tensor out = empty(IntList(stored), descr.dtype);
  auto* dst = static_cast<uint8_t*>(out.raw_data());
  const auto* src = reinterpret_cast<const uint8_t*>(b.data() + header_start + header_len);
  if (descr.order == '>' && item > 1) {
    for (size_t i = 0; i < count; ++i)
      for (size_t k = 0; k < item; ++k) dst[i * item + k] = src[i * item + item - 1 - k];
  } else if (count > 0) {
    std::memcpy(dst, src, count * item);
  }
  if (descr.dtype == kBool)
    for (size_t i = 0; i < count; ++i) NABLA_CHECK(dst[i] <= 1, "read_npy: '", path, "' has a bool that is not 0 or 1");
  if (fortran && shape.size() > 1) {
    std::vector<int64_t> dims(shape.size());
    for (size_t d = 0; d < dims.size(); ++d) dims[d] = static_cast<int64_t>(dims.size() - 1 - d);
    out = out.permute(IntList(dims)).contiguous();
  }
  return out;
}

void write_npy(const std::string& path, const Tensor& tensor) {
  const std::string bytes = encode_npy(tensor);
  AtomicFile out(path, "write_npy");  // temp file, fsync, rename: a failure keeps the old file
  out.write(bytes.data(), bytes.size());
  out.commit();
}

std::string encode_npy(const Tensor& tensor) {
  NABLA_CHECK(tensor.defined() && !tensor.is_symbolic(), "write_npy: needs a concrete tensor");
  const char* descr = nullptr;
  switch (tensor.dtype()) {
    case kBool:
      descr = "|b1";
      break;
    case kUInt8:
      descr = "|u1";
      break;
    case kInt32:
      descr = "<i4";
      break;
    case kInt64:
      descr = "<i8";
      break;
    case kFloat16:
      descr = "<f2";
      break;
    case kFloat32:
      descr = "<f4";
      break;
    case kFloat64:
      descr = "<f8";
      break;
    default:
      fail("write_npy: dtype ", tensor.dtype(), " has no NumPy equivalent; convert it first (e.g. to kFloat32)");
  }
  const Tensor t = tensor.cpu().contiguous();
  std::string shape = "(";
  for (int64_t d = 0; d < t.dim(); ++d)
    shape += std::to_string(t.size(d)) + (t.dim() == 1 ? ",)" : d + 1 < t.dim() ? ", " : ")");
  if (t.dim() == 0) shape += ")";
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so that the data starts at a multiple of 64 bytes, then '\n'.
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  NABLA_CHECK(header.size() <= 65535, "write_npy: header too long for format 1.0");
  std::string out(kMagic, 6);
  const char version_and_len[4] = {1, 0, char(header.size() & 0xFF), char(header.size() >> 8)};
  out.append(version_and_len, 4);
  out += header;
  if (t.numel() > 0)
    out.append(static_cast<const char*>(t.raw_data()), static_cast<size_t>(t.numel()) * itemsize(t.dtype()));
  return out;
}

}  // namespace nabla::data

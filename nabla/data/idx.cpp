// IDX reader (see idx.h). The whole file is read (InputFile) and inflated
// when it is gzip; parsing then checks every length against those bytes.
#include "nabla/data/idx.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <vector>

#include "nabla/core/error.h"
#include "nabla/core/input_file.h"
#include "nabla/ops/factory.h"

namespace nabla::data {

namespace {

// The file's bytes, inflated when they start with the gzip magic (1f 8b).
// Concatenated gzip members are joined, as gunzip does; anything else after
// the last member is refused.
std::vector<uint8_t> read_all(const std::string& path) {
  const std::string raw = read_file(path, "read_idx");
  if (raw.size() < 2 || static_cast<uint8_t>(raw[0]) != 0x1f || static_cast<uint8_t>(raw[1]) != 0x8b)
    return std::vector<uint8_t>(raw.begin(), raw.end());
  z_stream s{};
  NABLA_CHECK(inflateInit2(&s, 16 + MAX_WBITS) == Z_OK, "read_idx: zlib failed to initialize");
  struct End {
    z_stream& s;
    ~End() { inflateEnd(&s); }
  } end{s};
  std::vector<uint8_t> out(std::max<size_t>(raw.size() * 4, size_t(1) << 16));
  const auto* next = reinterpret_cast<const Bytef*>(raw.data());
  uint64_t in_left = raw.size(), produced = 0;
  for (;;) {
    if (produced == out.size()) out.resize(out.size() * 2);
    s.next_in = const_cast<Bytef*>(next);
    s.avail_in = static_cast<uInt>(std::min<uint64_t>(in_left, 1u << 30));
    s.next_out = out.data() + produced;
    s.avail_out = static_cast<uInt>(std::min<uint64_t>(out.size() - produced, 1u << 30));
    const uInt in_before = s.avail_in, out_before = s.avail_out;
    const int rc = inflate(&s, Z_NO_FLUSH);
    next = s.next_in;
    in_left -= in_before - s.avail_in;
    produced += out_before - s.avail_out;
    if (rc == Z_STREAM_END) {
      if (in_left == 0) break;
      NABLA_CHECK(in_left >= 2 && next[0] == 0x1f && next[1] == 0x8b, "read_idx: '", path, "' has ", in_left,
                  " unexpected bytes after its gzip stream (which ends at byte ", raw.size() - in_left, ")");
      inflateReset(&s);  // another gzip member follows
      continue;
    }
    if (rc == Z_OK || (rc == Z_BUF_ERROR && s.avail_out == 0)) continue;
    const char* why = s.msg ? s.msg : rc == Z_BUF_ERROR ? "the stream ends early" : "error";
    fail("read_idx: '", path, "' is a truncated or corrupt gzip file (zlib: ", why, ")");
  }
  out.resize(produced);
  return out;
}

uint32_t big_endian32(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

}  // namespace

Tensor read_idx(const std::string& path) {
  const std::vector<uint8_t> b = read_all(path);
  NABLA_CHECK(b.size() >= 4, "read_idx: '", path, "' is too short for an IDX header (", b.size(), " bytes)");
  NABLA_CHECK(b[0] == 0 && b[1] == 0, "read_idx: '", path, "' does not start with the IDX magic (two zero bytes)");
  DType dtype = kUInt8;
  size_t item = 1;
  switch (b[2]) {
    case 0x08:
      dtype = kUInt8;
      item = 1;
      break;
    case 0x0C:
      dtype = kInt32;
      item = 4;
      break;
    case 0x0D:
      dtype = kFloat32;
      item = 4;
      break;
    case 0x0E:
      dtype = kFloat64;
      item = 8;
      break;
    default:
      fail("read_idx: '", path, "' has IDX type code 0x", std::hex, int(b[2]),
           "; supported: 0x08 (uint8), 0x0C (int32), 0x0D (float32), 0x0E (float64)");
  }
  const size_t ndim = b[3];
  NABLA_CHECK(ndim >= 1 && ndim <= 6, "read_idx: '", path, "' declares ", ndim, " dims; expected 1 to 6");
  const size_t header = 4 + 4 * ndim;
  NABLA_CHECK(b.size() >= header, "read_idx: '", path, "' is truncated: its header needs ", header,
              " bytes, the file has ", b.size());
  std::vector<int64_t> sizes(ndim);
  const size_t payload = b.size() - header;
  for (size_t d = 0; d < ndim; ++d) sizes[d] = big_endian32(&b[4 + 4 * d]);
  // count stays <= payload / item (no overflow); an empty array needs no bytes.
  const bool empty_array = std::find(sizes.begin(), sizes.end(), 0) != sizes.end();
  size_t count = empty_array ? 0 : 1;
  for (size_t d = 0; d < ndim; ++d) {
    if (!empty_array && static_cast<uint64_t>(sizes[d]) > payload / item / count) {
      fail("read_idx: '", path, "' is truncated: dims ", sizes, " need more than the ", payload, " data bytes it has");
    }
    if (!empty_array) count *= static_cast<size_t>(sizes[d]);
  }
  if (empty_array) {  // no bytes, but the strides still span the other dims
    uint64_t span = 1;
    for (int64_t d : sizes) {
      NABLA_CHECK(d == 0 || span <= uint64_t(std::numeric_limits<int64_t>::max()) / uint64_t(d), "read_idx: '", path,
                  "' declares dims ", sizes, " whose product (not counting the 0s) overflows int64");
      if (d != 0) span *= uint64_t(d);
    }
  }
  NABLA_CHECK(count * item == payload, "read_idx: '", path, "' has ", payload, " data bytes but dims ", sizes, " need ",
              count * item);
  Tensor out = empty(IntList(sizes.data(), sizes.size()), dtype);
  auto* dst = static_cast<uint8_t*>(out.raw_data());
  const uint8_t* src = b.data() + header;
  for (size_t i = 0; i < count; ++i)  // big-endian to host (little-endian) order
    for (size_t k = 0; k < item; ++k) dst[i * item + k] = src[i * item + item - 1 - k];
  return out;
}

std::shared_ptr<TensorDataset> load_mnist(const std::string& dir, bool train) {
  const std::string prefix = (std::filesystem::path(dir) / (train ? "train" : "t10k")).string();
  auto find = [&](const std::string& stem) {
    for (const std::string& p : {prefix + stem, prefix + stem + ".gz"})
      if (std::filesystem::exists(p)) return p;
    fail("load_mnist: neither '", prefix + stem, "' nor '", prefix + stem, ".gz' exists");
  };
  Tensor images = read_idx(find("-images-idx3-ubyte"));
  Tensor labels = read_idx(find("-labels-idx1-ubyte"));
  NABLA_CHECK(images.dim() == 3 && labels.dim() == 1 && images.size(0) == labels.size(0), "load_mnist: images ",
              images.sizes(), " and labels ", labels.sizes(), " in '", dir, "' do not match ([N, H, W] and [N])");
  return std::make_shared<TensorDataset>(images, labels.to(kInt64));
}

}  // namespace nabla::data

// IDX reader (see idx.h). The whole file goes through zlib's gzread, which
// inflates gzip files and passes other files through unchanged; parsing then
// checks every length against the bytes actually read.
#include "nabla/data/idx.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <vector>

#include "nabla/core/error.h"
#include "nabla/ops/factory.h"

namespace nabla::data {

namespace {

std::vector<uint8_t> read_all(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  NABLA_CHECK(f != nullptr, "read_idx: cannot open '", path, "'");
  std::vector<uint8_t> bytes;
  constexpr size_t kChunk = size_t(1) << 20;
  for (;;) {
    const size_t old = bytes.size();
    bytes.resize(old + kChunk);
    const int n = gzread(f, bytes.data() + old, static_cast<unsigned>(kChunk));
    if (n < 0) {
      int code = 0;
      std::string msg = gzerror(f, &code);
      gzclose(f);
      fail("read_idx: '", path, "' is not a readable gzip or IDX file (zlib: ", msg, ")");
    }
    bytes.resize(old + static_cast<size_t>(n));
    if (static_cast<size_t>(n) < kChunk) break;
  }
  int code = 0;
  const std::string msg = gzerror(f, &code);
  gzclose(f);
  // A gzip stream cut short reads as data followed by Z_BUF_ERROR.
  NABLA_CHECK(code == Z_OK || code == Z_STREAM_END, "read_idx: '", path,
              "' is a truncated or corrupt gzip file (zlib: ", msg, ")");
  return bytes;
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

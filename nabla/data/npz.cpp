// .npz = ZIP of .npy members (see npz.h). The reader trusts only the central
// directory for sizes (local headers may carry ZIP64 placeholders or data
// descriptors) and reads the local header just to find where the data starts.
// Little-endian fields throughout, as the ZIP specification (APPNOTE) says.
#include "nabla/data/npz.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "nabla/core/atomic_file.h"
#include "nabla/core/error.h"
#include "nabla/core/input_file.h"
#include "nabla/data/npy.h"

namespace nabla::data {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50;
constexpr uint32_t kZip64EndSig = 0x06064b50, kZip64LocatorSig = 0x07064b50;
constexpr uint64_t kMax32 = 0xFFFFFFFFu;

// Bounds-checked little-endian reads from the archive bytes.
struct Bytes {
  const std::string& b;
  const std::string& path;
  void need(uint64_t pos, uint64_t n, const char* what) const {
    NABLA_CHECK(pos <= b.size() && n <= b.size() - pos, "read_npz: '", path, "' is truncated or corrupt: its ", what,
                " at offset ", pos, " needs ", n, " bytes, the file has ", b.size());
  }
  uint64_t le(uint64_t pos, int n) const {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(b[pos + static_cast<uint64_t>(i)]);
    return v;
  }
};

struct Member {
  std::string name;
  uint16_t method = 0, flags = 0;
  uint32_t crc = 0;
  uint64_t compressed = 0, size = 0, local_offset = 0;
};

// The end-of-central-directory record: where the directory is and how many entries.
void find_directory(const Bytes& z, uint64_t& count, uint64_t& dir_offset, uint64_t& dir_size) {
  const std::string& b = z.b;
  NABLA_CHECK(b.size() >= 22, "read_npz: '", z.path, "' is not a .npz (ZIP) file: only ", b.size(), " bytes");
  uint64_t lowest = b.size() >= 22 + 65535 ? b.size() - 22 - 65535 : 0;
  uint64_t end = b.size() - 22;
  for (;; --end) {
    if (z.le(end, 4) == kEndSig) break;
    NABLA_CHECK(end > lowest, "read_npz: '", z.path, "' is not a .npz (ZIP) file: no end-of-central-directory record");
  }
  count = z.le(end + 10, 2);
  dir_size = z.le(end + 12, 4);
  dir_offset = z.le(end + 16, 4);
  if (count == 0xFFFF || dir_size == kMax32 || dir_offset == kMax32) {  // ZIP64: the real values are elsewhere
    NABLA_CHECK(end >= 20 && z.le(end - 20, 4) == kZip64LocatorSig, "read_npz: '", z.path,
                "' has ZIP64 placeholders but no ZIP64 locator");
    uint64_t rec = z.le(end - 20 + 8, 8);
    z.need(rec, 56, "ZIP64 end record");
    NABLA_CHECK(z.le(rec, 4) == kZip64EndSig, "read_npz: '", z.path, "' has a bad ZIP64 end record signature");
    count = z.le(rec + 32, 8);
    dir_size = z.le(rec + 40, 8);
    dir_offset = z.le(rec + 48, 8);
  }
  z.need(dir_offset, dir_size, "central directory");
}

std::vector<Member> read_directory(const Bytes& z) {
  uint64_t count = 0, pos = 0, dir_size = 0;
  find_directory(z, count, pos, dir_size);
  NABLA_CHECK(count <= dir_size / 46, "read_npz: '", z.path, "' claims ", count, " members in a ", dir_size,
              "-byte directory");
  std::vector<Member> members;
  for (uint64_t i = 0; i < count; ++i) {
    z.need(pos, 46, "central directory entry");
    NABLA_CHECK(z.le(pos, 4) == kCentralSig, "read_npz: '", z.path, "' has a bad central directory entry ", i);
    Member m;
    m.flags = static_cast<uint16_t>(z.le(pos + 8, 2));
    m.method = static_cast<uint16_t>(z.le(pos + 10, 2));
    m.crc = static_cast<uint32_t>(z.le(pos + 16, 4));
    m.compressed = z.le(pos + 20, 4);
    m.size = z.le(pos + 24, 4);
    uint64_t name_len = z.le(pos + 28, 2), extra_len = z.le(pos + 30, 2), comment_len = z.le(pos + 32, 2);
    m.local_offset = z.le(pos + 42, 4);
    z.need(pos + 46, name_len + extra_len + comment_len, "central directory entry");
    m.name = z.b.substr(pos + 46, name_len);
    // ZIP64 extra field (id 1): the 64-bit values of the fields that hold 0xFFFFFFFF, in this order.
    for (uint64_t e = pos + 46 + name_len, stop = e + extra_len; e + 4 <= stop;) {
      uint64_t id = z.le(e, 2), len = z.le(e + 2, 2), q = e + 4;
      NABLA_CHECK(q + len <= stop, "read_npz: '", z.path, "' member '", m.name, "' has a malformed extra field");
      if (id == 1) {
        for (uint64_t* field : {&m.size, &m.compressed, &m.local_offset})
          if (*field == kMax32) {
            NABLA_CHECK(q + 8 <= e + 4 + len, "read_npz: '", z.path, "' member '", m.name,
                        "' has a short ZIP64 extra field");
            *field = z.le(q, 8);
            q += 8;
          }
      }
      e += 4 + len;
    }
    members.push_back(std::move(m));
    pos += 46 + name_len + extra_len + comment_len;
  }
  return members;
}

std::string inflate_member(const Bytes& z, const Member& m, uint64_t data) {
  // Deflate expands at most ~1032:1: a larger claimed size is a corrupt (or
  // hostile) directory, refused before allocating it.
  NABLA_CHECK(m.compressed <= kMax32 && m.size <= kMax32 && m.size <= m.compressed * 1032 + 64, "read_npz: '", z.path,
              "' member '", m.name, "' claims ", m.size, " bytes from ", m.compressed, " compressed ones");
  std::string out(m.size, '\0');
  z_stream s{};
  NABLA_CHECK(inflateInit2(&s, -MAX_WBITS) == Z_OK, "read_npz: zlib failed to initialize");
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(z.b.data() + data));
  s.avail_in = static_cast<uInt>(m.compressed);
  s.next_out = reinterpret_cast<Bytef*>(out.data());
  s.avail_out = static_cast<uInt>(m.size);
  int rc = inflate(&s, Z_FINISH);
  uint64_t produced = s.total_out;
  inflateEnd(&s);
  NABLA_CHECK(rc == Z_STREAM_END && produced == m.size, "read_npz: '", z.path, "' member '", m.name,
              "' is corrupt: its deflate stream ", rc == Z_STREAM_END ? "gives " : "fails after ", produced,
              " bytes, the directory says ", m.size);
  return out;
}

uint32_t crc_of(const char* data, uint64_t n) {
  uLong crc = crc32(0L, Z_NULL, 0);
  while (n > 0) {
    uInt chunk = static_cast<uInt>(std::min<uint64_t>(n, 1u << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data), chunk);
    data += chunk;
    n -= chunk;
  }
  return static_cast<uint32_t>(crc);
}

void put(std::string& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

}  // namespace

NpzArrays read_npz(const std::string& path) {
  const std::string b = read_file(path, "read_npz");
  Bytes z{b, path};
  NpzArrays out;
  std::set<std::string> names;
  for (const Member& m : read_directory(z)) {
    NABLA_CHECK(!(m.flags & 1), "read_npz: '", path, "' member '", m.name, "' is encrypted");
    NABLA_CHECK(m.method == 0 || m.method == 8, "read_npz: '", path, "' member '", m.name, "' uses compression method ",
                m.method, "; supported: 0 (stored) and 8 (deflate)");
    NABLA_CHECK(m.name.size() > 4 && m.name.compare(m.name.size() - 4, 4, ".npy") == 0, "read_npz: '", path,
                "' member '", m.name, "' is not a .npy file");
    const std::string key = m.name.substr(0, m.name.size() - 4);
    NABLA_CHECK(names.insert(key).second, "read_npz: '", path, "' has two members named '", m.name, "'");
    z.need(m.local_offset, 30, "local header");
    NABLA_CHECK(z.le(m.local_offset, 4) == kLocalSig, "read_npz: '", path, "' member '", m.name,
                "' has a bad local header signature");
    const uint64_t data = m.local_offset + 30 + z.le(m.local_offset + 26, 2) + z.le(m.local_offset + 28, 2);
    z.need(data, m.compressed, "member data");
    NABLA_CHECK(m.method == 8 || m.compressed == m.size, "read_npz: '", path, "' stored member '", m.name, "' has ",
                m.compressed, " bytes but a size of ", m.size);
    const std::string bytes = m.method == 8 ? inflate_member(z, m, data) : b.substr(data, m.size);
    const uint32_t crc = crc_of(bytes.data(), bytes.size());
    NABLA_CHECK(crc == m.crc, "read_npz: '", path, "' member '", m.name, "' fails its CRC-32 check (corrupt data)");
    out.emplace_back(key, parse_npy(bytes, path + "[" + m.name + "]"));
  }
  return out;
}

void write_npz(const std::string& path, const NpzArrays& arrays) {
  std::set<std::string> names;
  std::string archive, directory;
  for (const auto& [key, tensor] : arrays) {
    NABLA_CHECK(!key.empty() && key.size() < 60000, "write_npz: array names must be 1 to 59999 bytes, got '", key, "'");
    NABLA_CHECK(names.insert(key).second, "write_npz: two arrays are named '", key, "'");
    const std::string name = key + ".npy";
    const std::string bytes = encode_npy(tensor);
    const uint64_t offset = archive.size();
    NABLA_CHECK(bytes.size() < kMax32 && offset < kMax32, "write_npz: '", path,
                "' would pass 4 GiB (ZIP64 archives are not written)");
    const uint32_t crc = crc_of(bytes.data(), bytes.size());
    // Local header: version 2.0, no flags, stored, time 00:00 of 1980-01-01.
    put(archive, kLocalSig, 4);
    put(archive, 20, 2), put(archive, 0, 2), put(archive, 0, 2), put(archive, 0, 2), put(archive, 0x21, 2);
    put(archive, crc, 4), put(archive, bytes.size(), 4), put(archive, bytes.size(), 4);
    put(archive, name.size(), 2), put(archive, 0, 2);
    archive += name;
    archive += bytes;
    // Its central directory entry.
    put(directory, kCentralSig, 4);
    put(directory, 20, 2), put(directory, 20, 2), put(directory, 0, 2), put(directory, 0, 2);
    put(directory, 0, 2), put(directory, 0x21, 2);
    put(directory, crc, 4), put(directory, bytes.size(), 4), put(directory, bytes.size(), 4);
    put(directory, name.size(), 2), put(directory, 0, 2), put(directory, 0, 2);  // name, extra, comment lengths
    put(directory, 0, 2), put(directory, 0, 2), put(directory, 0, 4);            // disk, internal, external attrs
    put(directory, offset, 4);
    directory += name;
  }
  NABLA_CHECK(archive.size() + directory.size() < kMax32 && arrays.size() < 0xFFFF, "write_npz: '", path,
              "' would pass 4 GiB or 65535 arrays (ZIP64 archives are not written)");
  const uint64_t dir_offset = archive.size();
  archive += directory;
  put(archive, kEndSig, 4);
  put(archive, 0, 2), put(archive, 0, 2), put(archive, arrays.size(), 2), put(archive, arrays.size(), 2);
  put(archive, directory.size(), 4), put(archive, dir_offset, 4), put(archive, 0, 2);
  AtomicFile f(path, "write_npz");
  f.write(archive.data(), archive.size());
  f.commit();
}

}  // namespace nabla::data

// .npz = ZIP of .npy members (see npz.h). A ZIP file says most things twice
// (entry counts, directory size and offset, each member's name, method, CRC
// and sizes in its local header and in the central directory); the reader
// checks that the copies agree, so that no archive loads differently here
// than in another reader that trusts the other copy.
// Little-endian fields throughout, as the ZIP specification (APPNOTE) says.
#include "nabla/data/npz.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

#include "nabla/core/atomic_file.h"
#include "nabla/core/error.h"
#include "nabla/core/input_file.h"
#include "nabla/data/npy.h"

namespace nabla::data {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50;
constexpr uint32_t kZip64EndSig = 0x06064b50, kZip64LocatorSig = 0x07064b50, kDescriptorSig = 0x08074b50;
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

// Where the central directory is, how many entries it has and where it must
// end (the ZIP64 end record or the end-of-central-directory record).
struct Directory {
  uint64_t count = 0, offset = 0, size = 0, end = 0;
};

// The end-of-central-directory record (and the ZIP64 one it points to),
// with its redundant fields cross-checked: an archive whose copies of a count
// or a size disagree is corrupt, whichever copy another reader would trust.
Directory find_directory(const Bytes& z) {
  const std::string& b = z.b;
  NABLA_CHECK(b.size() >= 22, "read_npz: '", z.path, "' is not a .npz (ZIP) file: only ", b.size(), " bytes");
  uint64_t lowest = b.size() >= 22 + 65535 ? b.size() - 22 - 65535 : 0;
  uint64_t end = b.size() - 22;
  for (;; --end) {
    if (z.le(end, 4) == kEndSig) break;
    NABLA_CHECK(end > lowest, "read_npz: '", z.path, "' is not a .npz (ZIP) file: no end-of-central-directory record");
  }
  const uint64_t comment = z.le(end + 20, 2);
  NABLA_CHECK(end + 22 + comment == b.size(), "read_npz: '", z.path,
              "' end-of-central-directory field 'comment length' is ", comment, " but ", b.size() - end - 22,
              " bytes follow the record");
  Directory d;
  uint64_t on_disk = z.le(end + 8, 2);
  d.count = z.le(end + 10, 2);
  d.size = z.le(end + 12, 4);
  d.offset = z.le(end + 16, 4);
  d.end = end;
  if (on_disk == 0xFFFF || d.count == 0xFFFF || d.size == kMax32 || d.offset == kMax32) {
    // ZIP64: the real values are in the ZIP64 end record; each 16/32-bit copy
    // holds either its placeholder or the same value.
    NABLA_CHECK(end >= 20 && z.le(end - 20, 4) == kZip64LocatorSig, "read_npz: '", z.path,
                "' has ZIP64 placeholders but no ZIP64 locator");
    const uint64_t rec = z.le(end - 20 + 8, 8);
    z.need(rec, 56, "ZIP64 end record");
    NABLA_CHECK(z.le(rec, 4) == kZip64EndSig, "read_npz: '", z.path, "' has a bad ZIP64 end record signature");
    NABLA_CHECK(rec + 12 <= end - 20 && z.le(rec + 4, 8) == end - 20 - rec - 12, "read_npz: '", z.path,
                "' ZIP64 end record field 'size' is ", z.le(rec + 4, 8), ", but the ZIP64 locator is at offset ",
                end - 20);
    const uint64_t on_disk64 = z.le(rec + 24, 8), count64 = z.le(rec + 32, 8), size64 = z.le(rec + 40, 8),
                   offset64 = z.le(rec + 48, 8);
    const auto agree = [&](const char* field, uint64_t v32, uint64_t placeholder, uint64_t v64) {
      NABLA_CHECK(v32 == placeholder || v32 == v64, "read_npz: '", z.path, "' end-of-central-directory field '", field,
                  "' is ", v32, " but the ZIP64 end record says ", v64);
    };
    agree("entries on this disk", on_disk, 0xFFFF, on_disk64);
    agree("total entries", d.count, 0xFFFF, count64);
    agree("central directory size", d.size, kMax32, size64);
    agree("central directory offset", d.offset, kMax32, offset64);
    on_disk = on_disk64;
    d.count = count64;
    d.size = size64;
    d.offset = offset64;
    d.end = rec;
  }
  NABLA_CHECK(on_disk == d.count, "read_npz: '", z.path, "' end-of-central-directory fields disagree: ", on_disk,
              " entries on this disk, ", d.count, " in total (split archives are not read)");
  z.need(d.offset, d.size, "central directory");
  NABLA_CHECK(d.offset + d.size == d.end, "read_npz: '", z.path,
              "' end-of-central-directory fields 'central directory offset' (", d.offset, ") and 'size' (", d.size,
              ") end the directory at ", d.offset + d.size, ", but the end record starts at ", d.end);
  return d;
}

std::vector<Member> read_directory(const Bytes& z, const Directory& d) {
  NABLA_CHECK(d.count <= d.size / 46, "read_npz: '", z.path, "' claims ", d.count, " members in a ", d.size,
              "-byte directory");
  uint64_t pos = d.offset;
  std::vector<Member> members;
  for (uint64_t i = 0; i < d.count; ++i) {
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
  NABLA_CHECK(pos == d.offset + d.size, "read_npz: '", z.path,
              "' end-of-central-directory field 'central directory size' is ", d.size, " bytes, but its ", d.count,
              " entries take ", pos - d.offset);
  return members;
}

// The member's local header, checked against its central directory entry
// (name, flags, method and, unless a data descriptor follows the data, CRC-32
// and sizes); returns where the member's data starts.
uint64_t check_local_header(const Bytes& z, const Member& m) {
  const uint64_t at = m.local_offset;
  z.need(at, 30, "local header");
  const std::string where = "read_npz: '" + z.path + "' member '" + m.name + "'";
  NABLA_CHECK(z.le(at, 4) == kLocalSig, where, " has a bad local header signature");
  const uint64_t name_len = z.le(at + 26, 2), extra_len = z.le(at + 28, 2);
  z.need(at + 30, name_len + extra_len, "local header");
  const auto agree = [&](const char* field, uint64_t local, uint64_t central) {
    NABLA_CHECK(local == central, where, ": local header field '", field, "' is ", local,
                " but the central directory says ", central);
  };
  NABLA_CHECK(z.b.compare(at + 30, name_len, m.name) == 0, where, ": local header field 'file name' is '",
              z.b.substr(at + 30, name_len), "'");
  agree("flags", z.le(at + 6, 2), m.flags);
  agree("compression method", z.le(at + 8, 2), m.method);
  if (!(m.flags & 8)) {  // no data descriptor: the local header holds the real values
    agree("crc-32", z.le(at + 14, 4), m.crc);
    uint64_t compressed = z.le(at + 18, 4), size = z.le(at + 22, 4);
    for (uint64_t e = at + 30 + name_len, stop = e + extra_len; e + 4 <= stop;) {
      const uint64_t id = z.le(e, 2), len = z.le(e + 2, 2);
      NABLA_CHECK(e + 4 + len <= stop, where, " has a malformed extra field in its local header");
      uint64_t q = e + 4;
      if (id == 1)
        for (uint64_t* field : {&size, &compressed})
          if (*field == kMax32 && q + 8 <= e + 4 + len) {
            *field = z.le(q, 8);
            q += 8;
          }
      e += 4 + len;
    }
    agree("uncompressed size", size, m.size);
    agree("compressed size", compressed, m.compressed);
  }
  return at + 30 + name_len + extra_len;
}

// Whether the member's local header has a ZIP64 extra field (id 1).
bool local_zip64(const Bytes& z, const Member& m) {
  const uint64_t at = m.local_offset, name_len = z.le(at + 26, 2), extra_len = z.le(at + 28, 2);
  for (uint64_t e = at + 30 + name_len, stop = e + extra_len; e + 4 <= stop; e += 4 + z.le(e + 2, 2))
    if (z.le(e, 2) == 1) return true;
  return false;
}

// With flag bit 3 the CRC-32 and sizes follow the member's data in a data
// descriptor ([signature] crc-32, compressed size, size; 8-byte sizes when the
// local header has a ZIP64 extra field), as a writer to a stream puts them:
// one more copy, which a streaming reader trusts, so it must agree too.
// Returns where the descriptor ends.
uint64_t check_data_descriptor(const Bytes& z, const Member& m, uint64_t data) {
  uint64_t at = data + m.compressed;
  z.need(at, 4, "data descriptor");
  if (z.le(at, 4) == kDescriptorSig) at += 4;
  const int width = local_zip64(z, m) ? 8 : 4;
  z.need(at, 4 + 2 * static_cast<uint64_t>(width), "data descriptor");
  const auto agree = [&](const char* field, uint64_t copy, uint64_t central) {
    NABLA_CHECK(copy == central, "read_npz: '", z.path, "' member '", m.name, "': data descriptor field '", field,
                "' is ", copy, " but the central directory says ", central);
  };
  agree("crc-32", z.le(at, 4), m.crc);
  agree("compressed size", z.le(at + 4, width), m.compressed);
  agree("uncompressed size", z.le(at + 4 + width, width), m.size);
  return at + 4 + 2 * static_cast<uint64_t>(width);
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

// A member name must stay inside the archive's folder when extracted (by
// `unzip`, Python's zipfile, ...): no absolute path, no '..' component, no
// backslash (a separator on Windows), no drive letter, no NUL.
void check_member_name(const char* api, const std::string& path, const std::string& name) {
  const auto refuse = [&](const char* why) {
    fail(api, ": '", path, "' member name '", name, "' would escape the archive's folder (", why,
         "); use a relative name without '..'");
  };
  if (!name.empty() && name[0] == '/') refuse("an absolute path");
  if (name.find('\\') != std::string::npos) refuse("a backslash");
  if (name.find('\0') != std::string::npos) refuse("a NUL byte");
  if (name.size() >= 2 && name[1] == ':' && std::isalpha(static_cast<unsigned char>(name[0]))) refuse("a drive letter");
  for (std::size_t start = 0;;) {
    const std::size_t slash = name.find('/', start);
    if (name.compare(start, slash == std::string::npos ? std::string::npos : slash - start, "..") == 0)
      refuse("a '..' component");
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
}

// A member's array. parse_npy's errors say "read_npy: '<where>' ..."; the user
// called read_npz, so they are raised again under that name, naming the
// archive and the member.
Tensor parse_member(const std::string& path, const std::string& member, const std::string& bytes) {
  const std::string where = path + "[" + member + "]";
  try {
    return parse_npy(bytes, where);
  } catch (const Error& e) {
    const std::string msg = e.what(), prefix = "read_npy: '" + where + "'";
    fail("read_npz: '", path, "' member '", member, "'",
         msg.rfind(prefix, 0) == 0 ? msg.substr(prefix.size()) : ": " + msg);
  }
}

}  // namespace

NpzArrays read_npz(const std::string& path) {
  const std::string b = read_file(path, "read_npz");
  Bytes z{b, path};
  NpzArrays out;
  std::set<std::string> names;
  const Directory d = find_directory(z);
  std::vector<std::pair<uint64_t, uint64_t>> spans;  // [local header, end of data) of each member
  for (const Member& m : read_directory(z, d)) {
    check_member_name("read_npz", path, m.name);
    NABLA_CHECK(!(m.flags & 1), "read_npz: '", path, "' member '", m.name, "' is encrypted");
    NABLA_CHECK(m.method == 0 || m.method == 8, "read_npz: '", path, "' member '", m.name, "' uses compression method ",
                m.method, "; supported: 0 (stored) and 8 (deflate)");
    NABLA_CHECK(m.name.size() > 4 && m.name.compare(m.name.size() - 4, 4, ".npy") == 0, "read_npz: '", path,
                "' member '", m.name, "' is not a .npy file");
    const std::string key = m.name.substr(0, m.name.size() - 4);
    NABLA_CHECK(names.insert(key).second, "read_npz: '", path, "' has two members named '", m.name, "'");
    const uint64_t data = check_local_header(z, m);
    z.need(data, m.compressed, "member data");
    spans.emplace_back(m.local_offset, m.flags & 8 ? check_data_descriptor(z, m, data) : data + m.compressed);
    NABLA_CHECK(m.method == 8 || m.compressed == m.size, "read_npz: '", path, "' stored member '", m.name, "' has ",
                m.compressed, " bytes but a size of ", m.size);
    const std::string bytes = m.method == 8 ? inflate_member(z, m, data) : b.substr(data, m.size);
    const uint32_t crc = crc_of(bytes.data(), bytes.size());
    NABLA_CHECK(crc == m.crc, "read_npz: '", path, "' member '", m.name, "' fails its CRC-32 check (corrupt data)");
    out.emplace_back(key, parse_member(path, m.name, bytes));
  }
  // Members lie one after another before the directory, sharing no byte.
  std::sort(spans.begin(), spans.end());
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const uint64_t next = i + 1 < spans.size() ? spans[i + 1].first : d.offset;
    NABLA_CHECK(spans[i].second <= next, "read_npz: '", path, "' has overlapping members: the one at offset ",
                spans[i].first, " ends at ", spans[i].second, ", after ",
                i + 1 < spans.size() ? "the next member starts" : "the central directory starts", " at ", next);
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
    check_member_name("write_npz", path, name);
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

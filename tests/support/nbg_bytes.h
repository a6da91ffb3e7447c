// Byte-level helpers for tests of .nbg files (docs/nbg-format.md): read and
// write a file's bytes, little-endian fields, and the checksums a writer
// would compute, so that tests can edit a saved graph and still get past the
// CRCs to the structural checks.
#pragma once
#include <zlib.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>

namespace nabla::testing {

inline constexpr std::size_t kNbgHeader = 44;  // docs/nbg-format.md

inline std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}
inline void write_bytes(const std::string& path, const std::string& b) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(b.data(), static_cast<std::streamsize>(b.size()));
}
inline uint64_t get_le(const std::string& b, std::size_t pos, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(b[pos + i])) << (8 * i);
  return v;
}
inline void put_le(std::string& b, std::size_t pos, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) b[pos + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
inline uint32_t crc(const char* p, std::size_t n) {
  return static_cast<uint32_t>(::crc32(::crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(p), static_cast<uInt>(n)));
}
// Recomputes the three checksums after an edit, as a writer would.
inline void fix_checksums(std::string& b) {
  const uint64_t table = get_le(b, 16, 8), data = get_le(b, 24, 8);
  put_le(b, 32, crc(b.data() + kNbgHeader, table), 4);
  put_le(b, 36, crc(b.data() + kNbgHeader + table, data), 4);
  put_le(b, 40, crc(b.data(), 40), 4);
}

}  // namespace nabla::testing

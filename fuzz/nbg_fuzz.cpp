// libFuzzer target: saved graphs (.nbg) through graph::load and
// Session::load. Random bytes rarely carry three right CRC-32s, so each input
// is loaded twice: as given, and with the header's checksums recomputed for
// its own table and data (docs/nbg-format.md), which lets mutations reach the
// node-table parser and the checks behind it.
#include <zlib.h>

#include <cstring>
#include <vector>

#include "fuzz/fuzz_input.h"
#include "nabla/graph/serialize.h"

namespace {

constexpr size_t kHeader = 44;

uint64_t read_u64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);  // little-endian host, as the format
  return v;
}

void write_u32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }

uint32_t crc(const uint8_t* p, size_t n) { return static_cast<uint32_t>(crc32(0, p, static_cast<uInt>(n))); }

// The bytes with CRCs that match them; false when the header's sizes do not
// fit the input (the loader refuses those before any CRC).
bool with_fixed_crcs(const uint8_t* data, size_t size, std::vector<uint8_t>& out) {
  if (size < kHeader) return false;
  const uint64_t table = read_u64(data + 16), payload = read_u64(data + 24);
  if (table > size - kHeader || payload > size - kHeader - table) return false;
  out.assign(data, data + size);
  write_u32(&out[32], crc(&out[kHeader], table));
  write_u32(&out[36], crc(&out[kHeader + table], payload));
  write_u32(&out[40], crc(&out[0], 40));
  return std::memcmp(out.data(), data, kHeader) != 0;
}

void load_both_ways(const std::string& path) {
  using namespace nabla;
  fuzz::refused_or_read([&] { graph::load(path); });
  fuzz::refused_or_read([&] { graph::Session::load(path); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nabla;
  load_both_ways(fuzz::write_input(data, size, ".nbg"));
  std::vector<uint8_t> fixed;
  if (with_fixed_crcs(data, size, fixed)) load_both_ways(fuzz::write_input(fixed.data(), fixed.size(), ".nbg"));
  return 0;
}

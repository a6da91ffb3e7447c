// libFuzzer target: data::read_idx through its gzip path. The input's first
// byte picks the layout, the rest is the IDX content, which the target gzips
// (as one member, or as two concatenated members split after `first byte`
// bytes, which read_idx joins like gunzip), so that mutations reach the IDX
// parser behind the inflate loop instead of stopping at a corrupt deflate
// stream (idx_fuzz feeds raw gzip bytes too).
#include <zlib.h>

#include <algorithm>
#include <vector>

#include "fuzz/fuzz_input.h"
#include "nabla/data/idx.h"

namespace {

// One gzip member holding `size` bytes.
void append_gzip(const uint8_t* data, size_t size, std::vector<uint8_t>& out) {
  z_stream s{};
  if (deflateInit2(&s, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  const size_t start = out.size();
  out.resize(start + deflateBound(&s, size));
  s.next_in = const_cast<Bytef*>(data);
  s.avail_in = static_cast<uInt>(size);
  s.next_out = out.data() + start;
  s.avail_out = static_cast<uInt>(out.size() - start);
  if (deflate(&s, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(start + s.total_out);
  deflateEnd(&s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nabla;
  if (size == 0) return 0;
  const size_t split = data[0];  // 0: one member
  const uint8_t* idx = data + 1;
  const size_t idx_size = size - 1;
  std::vector<uint8_t> gz;
  if (split == 0 || split >= idx_size) {
    append_gzip(idx, idx_size, gz);
  } else {
    append_gzip(idx, split, gz);
    append_gzip(idx + split, idx_size - split, gz);
  }
  const std::string path = fuzz::write_input(gz.data(), gz.size(), ".idx.gz");
  fuzz::refused_or_read([&] {
    volatile uint64_t keep = fuzz::touch(data::read_idx(path));
    (void)keep;
  });
  return 0;
}

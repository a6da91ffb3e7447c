// Seeded permutations and uniform draws from Philox (see permutation.h).
#include "nabla/data/permutation.h"

#include <cstddef>
#include <numeric>
#include <utility>

#include "nabla/core/random.h"

namespace nabla::data::detail {

namespace {
// Streams are 2^40 counters apart: enough for any dataset.
uint64_t stream_offset(uint64_t stream) { return stream << 40; }
uint64_t bits64(uint64_t seed, uint64_t stream, uint64_t k) {
  const auto w = Philox::at(seed, stream_offset(stream), k);
  return (uint64_t(w[0]) << 32) | w[1];
}
}  // namespace

std::vector<int64_t> permutation(int64_t n, uint64_t seed, uint64_t stream) {
  std::vector<int64_t> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), int64_t{0});
  for (int64_t i = n - 1; i > 0; --i) {
    // j uniform in [0, i] by a 64x64 -> 128-bit multiply (bias below 2^-40).
    const auto j =
        static_cast<int64_t>((static_cast<unsigned __int128>(bits64(seed, stream, i)) * uint64_t(i + 1)) >> 64);
    std::swap(p[i], p[j]);
  }
  return p;
}

double uniform(uint64_t seed, uint64_t stream, uint64_t k) {
  const auto w = Philox::at(seed, stream_offset(stream), k);
  return Philox::to_unit_double(w[0], w[1]);
}

}  // namespace nabla::data::detail

// The loop of the CPU random kernels: element i of a draw reads the Philox
// words of counter i / kPerCounter (rand and dropout: two elements per
// counter, words (i % 2) * 2 and the next; randn, randint: one, all four).
// The blocks of a range are made in tiles by Philox::blocks, each once, so
// the result is that of Philox::at per element for any split of the range.
#pragma once
#include <algorithm>
#include <cstdint>

#include "nabla/core/random.h"

namespace nabla::cpu {

// fn(i, w) for i in [begin, end): w points at element i's words in its
// counter's block (w[0], w[1] for two per counter; w[0..3] for one).
template <int kPerCounter, class Fn>
void for_each_draw(uint64_t seed, uint64_t offset, int64_t begin, int64_t end, Fn&& fn) {
  static_assert(kPerCounter == 1 || kPerCounter == 2);
  constexpr int64_t kTile = 256;  // counters per Philox::blocks call: 4 KiB of words, L1-resident
  alignas(64) uint32_t words[4 * kTile];
  for (int64_t i = begin; i < end;) {
    const int64_t first = i / kPerCounter, last = std::min((end - 1) / kPerCounter + 1, first + kTile);
    Philox::blocks(seed, offset, static_cast<uint64_t>(first), last - first, words);
    const int64_t base = first * kPerCounter;  // the element whose words start the tile
    for (const int64_t stop = std::min(end, last * kPerCounter); i < stop; ++i) {
      fn(i, words + (i - base) * (4 / kPerCounter));
    }
  }
}

}  // namespace nabla::cpu

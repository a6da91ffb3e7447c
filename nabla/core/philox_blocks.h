// The two implementations behind Philox::blocks (core/random.h), declared
// here so that tests can check each against Philox::at on any CPU.
#pragma once
#include <cstdint>

namespace nabla::detail {

// Whether the CPU has avx512f, which philox_blocks_avx512 needs.
bool philox_avx512_available();

// Both write block first + j of stream (seed, offset) to out[4 j .. 4 j + 3]
// for j < count, exactly Philox::at(seed, offset, first + j).
// Eight blocks' rounds interleaved (independent chains the CPU overlaps).
void philox_blocks_portable(uint64_t seed, uint64_t offset, uint64_t first, int64_t count, uint32_t* out);
// Sixteen counters per vector; needs philox_avx512_available().
void philox_blocks_avx512(uint64_t seed, uint64_t offset, uint64_t first, int64_t count, uint32_t* out);

}  // namespace nabla::detail

// Seeded random permutations and draws for samplers and random_split, from the
// counter-based Philox generator: the result depends only on (seed, stream), not
// on the global generator, the thread or what was drawn before.
#pragma once
#include <cstdint>
#include <vector>

namespace nabla::data::detail {

// A permutation of 0..n-1 (Fisher-Yates); stream selects an independent draw
// (samplers use the epoch).
std::vector<int64_t> permutation(int64_t n, uint64_t seed, uint64_t stream);
// The k-th uniform double in [0, 1) of stream (seed, stream).
double uniform(uint64_t seed, uint64_t stream, uint64_t k);

}  // namespace nabla::data::detail

#include "nabla/core/random.h"

#include <mutex>

#include "nabla/core/philox_blocks.h"

namespace nabla {
namespace {
std::mutex g_mu;
// The generator of this thread's innermost GeneratorScope (null: the global one).
thread_local Generator* t_scoped = nullptr;
}

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(g_mu);
  seed_ = seed;
  offset_ = 0;
}

GeneratorState Generator::get_state() const {
  std::lock_guard<std::mutex> lock(g_mu);
  return {seed_, offset_};
}

void Generator::set_state(GeneratorState state) {
  std::lock_guard<std::mutex> lock(g_mu);
  seed_ = state.seed;
  offset_ = state.offset;
}

uint64_t Generator::reserve(uint64_t counters) {
  std::lock_guard<std::mutex> lock(g_mu);
  uint64_t first = offset_;
  offset_ += counters;
  return first;
}

Generator& default_generator() {
  static Generator g;
  return t_scoped ? *t_scoped : g;
}

GeneratorScope::GeneratorScope(Generator& g) : prev_(t_scoped) { t_scoped = &g; }
GeneratorScope::~GeneratorScope() { t_scoped = prev_; }

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }

void Philox::blocks(uint64_t seed, uint64_t offset, uint64_t first, int64_t count, uint32_t* out) {
  if (detail::philox_avx512_available()) detail::philox_blocks_avx512(seed, offset, first, count, out);
  else detail::philox_blocks_portable(seed, offset, first, count, out);
}

namespace detail {

// Philox::block's rounds on kLanes counters side by side: each block is a
// serial chain of ten multiplies, so one at a time leaves the CPU waiting;
// eight independent chains fill its pipelines (and the compiler may
// vectorize the lane loops).
void philox_blocks_portable(uint64_t seed, uint64_t offset, uint64_t first, int64_t count, uint32_t* out) {
  constexpr int kLanes = 8;
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u, kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  int64_t j = 0;
  for (; j + kLanes <= count; j += kLanes) {
    uint32_t c0[kLanes], c1[kLanes], c2[kLanes] = {}, c3[kLanes] = {};
    for (int l = 0; l < kLanes; ++l) {
      const uint64_t c = offset + first + static_cast<uint64_t>(j + l);
      c0[l] = static_cast<uint32_t>(c);
      c1[l] = static_cast<uint32_t>(c >> 32);
    }
    uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
    for (int round = 0; round < 10; ++round) {
      for (int l = 0; l < kLanes; ++l) {
        const uint64_t p0 = uint64_t(kM0) * c0[l], p1 = uint64_t(kM1) * c2[l];
        c0[l] = static_cast<uint32_t>(p1 >> 32) ^ c1[l] ^ k0;
        c1[l] = static_cast<uint32_t>(p1);
        c2[l] = static_cast<uint32_t>(p0 >> 32) ^ c3[l] ^ k1;
        c3[l] = static_cast<uint32_t>(p0);
      }
      k0 += kW0;
      k1 += kW1;
    }
    for (int l = 0; l < kLanes; ++l) {
      uint32_t* w = out + 4 * (j + l);
      w[0] = c0[l];
      w[1] = c1[l];
      w[2] = c2[l];
      w[3] = c3[l];
    }
  }
  for (; j < count; ++j) {
    const auto w = Philox::at(seed, offset, first + static_cast<uint64_t>(j));
    for (int k = 0; k < 4; ++k) out[4 * j + k] = w[k];
  }
}

}  // namespace detail

}  // namespace nabla

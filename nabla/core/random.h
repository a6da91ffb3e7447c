// Counter-based random numbers (Philox4x32-10, as in PyTorch's CUDA generator
// and JAX): element i of a draw depends only on (seed, offset, i), so results
// are the same for any thread count and on every device.
#pragma once
#include <array>
#include <cstdint>

namespace nabla {

struct Philox {
  static std::array<uint32_t, 4> block(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key) {
    constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u, kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
    for (int round = 0; round < 10; ++round) {
      uint64_t p0 = uint64_t(kM0) * counter[0];
      uint64_t p1 = uint64_t(kM1) * counter[2];
      counter = {uint32_t(p1 >> 32) ^ counter[1] ^ key[0], uint32_t(p1), uint32_t(p0 >> 32) ^ counter[3] ^ key[1],
                 uint32_t(p0)};
      key[0] += kW0;
      key[1] += kW1;
    }
    return counter;
  }
  // Four 32-bit random words for counter value n of stream (seed, offset).
  static std::array<uint32_t, 4> at(uint64_t seed, uint64_t offset, uint64_t n) {
    uint64_t c = offset + n;
    return block({uint32_t(c), uint32_t(c >> 32), 0u, 0u}, {uint32_t(seed), uint32_t(seed >> 32)});
  }
  // Blocks first, ..., first + count - 1 of stream (seed, offset): block j's
  // four words go to out[4 j .. 4 j + 3] and equal at(seed, offset, first + j).
  // Much faster per block than `at` (AVX-512: sixteen counters per vector;
  // elsewhere eight interleaved); the kernels draw through it.
  static void blocks(uint64_t seed, uint64_t offset, uint64_t first, int64_t count, uint32_t* out);
  // Uniform in [0, 1) from 24 random bits (float) or 53 (double).
  static float to_unit_float(uint32_t x) { return static_cast<float>(x >> 8) * (1.0f / 16777216.0f); }
  static double to_unit_double(uint32_t hi, uint32_t lo) {
    uint64_t v = (uint64_t(hi) << 21) ^ (lo >> 11);
    return static_cast<double>(v & ((uint64_t(1) << 53) - 1)) * (1.0 / 9007199254740992.0);
  }
};

// Where a generator stands: its seed and how many Philox counters it has
// handed out. Restoring it makes the following draws repeat exactly (resuming
// training: io/training_state.h).
struct GeneratorState {
  uint64_t seed = 0;
  uint64_t offset = 0;
  bool operator==(const GeneratorState&) const = default;
};

// The global generator: a seed and an offset that each draw advances.
class Generator {
 public:
  void manual_seed(uint64_t seed);
  uint64_t seed() const { return seed_; }
  // torch.Generator.get_state / set_state.
  GeneratorState get_state() const;
  void set_state(GeneratorState state);
  // Reserves `counters` Philox counters and returns the first.
  uint64_t reserve(uint64_t counters);

 private:
  uint64_t seed_ = 67280421310721ull;
  uint64_t offset_ = 0;
};

// The generator that random ops draw from: the global one, or on this thread
// the one of the innermost live GeneratorScope.
Generator& default_generator();
void manual_seed(uint64_t seed);

// While it lives, default_generator() on this thread is `g`: the ops draw
// from `g` and leave the global generator untouched. A graph Session with a
// graph-level seed (graph::Graph::seed) runs each random node under the
// scope of that node's own generator.
class GeneratorScope {
 public:
  explicit GeneratorScope(Generator& g);
  ~GeneratorScope();
  GeneratorScope(const GeneratorScope&) = delete;
  GeneratorScope& operator=(const GeneratorScope&) = delete;

 private:
  Generator* prev_;
};

}  // namespace nabla

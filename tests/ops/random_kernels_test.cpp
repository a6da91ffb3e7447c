// The CPU random kernels draw their Philox blocks in batches (Philox::blocks,
// kernels/cpu/philox_draws.h) instead of one Philox::at per element. These
// tests hold both implementations of the batch to Philox::at, and the kernels
// to the per-element formulas of docs/tensors.md ("Randomness"), for several
// sizes, thread counts (so chunkings) and stream offsets, including offsets
// where the counter's low word carries (2^32) and where it wraps (2^64).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <numbers>

#include "nabla/core/philox_blocks.h"
#include "nabla/kernels/cpu/dropout.h"
#include "support/op_info.h"

namespace nabla::testing {
namespace {

const uint64_t kDrawSeeds[] = {0, 1, 20240611, 0xFFFFFFFFull, 0x9E3779B97F4A7C15ull, ~uint64_t{0}};
const uint64_t kDrawOffsets[] = {0, 1, 1000003, (uint64_t{1} << 32) - 5, uint64_t{1} << 32, ~uint64_t{0} - 37, ~uint64_t{0}};

using BlocksFn = void (*)(uint64_t, uint64_t, uint64_t, int64_t, uint32_t*);

TEST(PhiloxBlocks, EveryImplementationEqualsAt) {
  std::vector<std::pair<const char*, BlocksFn>> impls = {{"portable", detail::philox_blocks_portable},
                                                         {"Philox::blocks", Philox::blocks}};
  if (detail::philox_avx512_available()) impls.emplace_back("avx512", detail::philox_blocks_avx512);
  std::vector<int64_t> counts;
  for (int64_t c = 0; c <= 40; ++c) counts.push_back(c);  // every remainder modulo 8 and 16
  for (int64_t c : {255, 256, 257, 1000}) counts.push_back(c);
  constexpr uint32_t kUntouched = 0xA5A5A5A5u;
  for (uint64_t seed : kDrawSeeds) {
    for (uint64_t offset : kDrawOffsets) {
      for (uint64_t first : {uint64_t{0}, uint64_t{3}, uint64_t{1} << 31, ~uint64_t{0} - 9}) {
        for (int64_t count : counts) {
          std::vector<uint32_t> want;
          for (int64_t j = 0; j < count; ++j) {
            for (uint32_t w : Philox::at(seed, offset, first + static_cast<uint64_t>(j))) want.push_back(w);
          }
          for (const auto& [name, blocks] : impls) {
            std::vector<uint32_t> got(want.size() + 8, kUntouched);
            blocks(seed, offset, first, count, got.data());
            ASSERT_TRUE(std::equal(want.begin(), want.end(), got.begin()))
                << name << ": seed " << seed << " offset " << offset << " first " << first << " count " << count;
            for (std::size_t k = want.size(); k < got.size(); ++k) {
              ASSERT_EQ(got[k], kUntouched) << name << " wrote past block " << count << " (count " << count << ")";
            }
          }
        }
      }
    }
  }
}

// ---- the kernels against the per-element formulas -----------------------

double unit_of(uint32_t hi, uint32_t lo) {
  return std::ldexp(static_cast<double>(((uint64_t(hi) << 21) ^ (lo >> 11)) & ((uint64_t{1} << 53) - 1)), -53);
}
// rand's element i: two per counter, words (i % 2) * 2 and the next.
double rand_element(uint64_t seed, uint64_t offset, int64_t i) {
  const auto w = Philox::at(seed, offset, static_cast<uint64_t>(i / 2));
  return unit_of(w[(i % 2) * 2], w[(i % 2) * 2 + 1]);
}

// Sizes below and above the kernels' parallel grains (4096 for dropout,
// 32768 for the factories), odd ones ending mid-counter; thread counts 1-3.
const int64_t kDrawSizes[] = {1, 2, 7, 33, 4097, 40001};
const int kDrawThreads[] = {1, 2, 3};
const uint64_t kKernelOffsets[] = {0, (uint64_t{1} << 32) - 3, ~uint64_t{0} - 5};

// Runs fn(threads) for each thread count, restoring the pool's size and the generator.
template <class Fn>
void for_each_thread_count(Fn&& fn) {
  const int saved = get_num_threads();
  const GeneratorState before = default_generator().get_state();
  for (int threads : kDrawThreads) {
    set_num_threads(threads);
    fn(threads);
  }
  set_num_threads(saved);
  default_generator().set_state(before);
}

template <class T>
std::vector<T> drawn(const std::function<Tensor()>& draw, uint64_t seed, uint64_t offset) {
  default_generator().set_state({seed, offset});
  return draw().to_vector<T>();
}

TEST(RandomKernels, RandAndBernoulliEqualTheFormulaForAnySplit) {
  const uint64_t seed = 777;
  for_each_thread_count([&](int threads) {
    for (uint64_t offset : kKernelOffsets) {
      for (int64_t n : kDrawSizes) {
        SCOPED_TRACE(::testing::Message() << "threads " << threads << " offset " << offset << " n " << n);
        std::vector<float> r32 = drawn<float>([&] { return rand({n}); }, seed, offset);
        std::vector<double> r64 = drawn<double>([&] { return rand({n}, dtype(kFloat64)); }, seed, offset);
        std::vector<float> b = drawn<float>([&] { return bernoulli({n}, 0.3); }, seed, offset);
        std::vector<double> p_values(static_cast<std::size_t>(n));
        for (int64_t i = 0; i < n; ++i) p_values[i] = static_cast<double>(i % 11) / 10.0;
        const Tensor p = from_values(p_values, {n});
        std::vector<double> bp = drawn<double>([&] { return bernoulli(p); }, seed, offset);
        for (int64_t i = 0; i < n; ++i) {
          const float u = static_cast<float>(rand_element(seed, offset, i));  // stored through float
          ASSERT_EQ(r32[i], u) << "rand float32 at " << i;
          ASSERT_EQ(r64[i], static_cast<double>(u)) << "rand float64 at " << i;
          ASSERT_EQ(b[i], u < 0.3 ? 1.0f : 0.0f) << "bernoulli(0.3) at " << i;
          ASSERT_EQ(bp[i], u < p_values[i] ? 1.0 : 0.0) << "bernoulli(p) at " << i;
        }
      }
    }
  });
}

TEST(RandomKernels, RandintAndNormalEqualTheFormulaForAnySplit) {
  const uint64_t seed = 4242;
  std::map<std::pair<uint64_t, int64_t>, std::vector<float>> normal_at_one_thread;
  for_each_thread_count([&](int threads) {
    for (uint64_t offset : kKernelOffsets) {
      for (int64_t n : kDrawSizes) {
        SCOPED_TRACE(::testing::Message() << "threads " << threads << " offset " << offset << " n " << n);
        std::vector<int64_t> ri = drawn<int64_t>([&] { return randint(-5, 1000, {n}); }, seed, offset);
        std::vector<float> g = drawn<float>([&] { return normal(1.5, 2.0, {n}); }, seed, offset);
        for (int64_t i = 0; i < n; ++i) {
          const auto w = Philox::at(seed, offset, static_cast<uint64_t>(i));
          ASSERT_EQ(ri[i], -5 + static_cast<int64_t>((uint64_t(w[0]) << 32 | w[1]) % 1005)) << "randint at " << i;
          // Box-Muller through libm: the library may contract to FMAs where
          // this file does not, so a float ulp or two, not bits.
          const double r = std::sqrt(-2.0 * std::log(1.0 - unit_of(w[0], w[1])));
          const double want = 1.5 + 2.0 * r * std::cos(2.0 * std::numbers::pi * unit_of(w[2], w[3]));
          ASSERT_NEAR(g[i], want, 1e-6 * (1.0 + std::abs(want))) << "normal at " << i;
        }
        // The same bits for every thread count.
        auto [it, first] = normal_at_one_thread.try_emplace({offset, n}, g);
        if (!first) ASSERT_EQ(0, std::memcmp(it->second.data(), g.data(), g.size() * sizeof(float)));
      }
    }
  });
}

// The kernel itself (the op reserves its own offset): its mask is rand's
// float64 elements < 1 - p, and out = x * (keep ? 1 / (1 - p) : 0) in x's dtype.
template <class T>
void check_dropout_kernel(uint64_t seed, uint64_t offset, int64_t n, double p) {
  std::vector<double> xv(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) xv[i] = 1.0 + static_cast<double>(i % 97) / 7.0;
  const Tensor x = from_values(xv, {n}, dtype_of<T>::value);
  const Tensor out = empty({n}, dtype(dtype_of<T>::value)), mask = empty({n}, dtype(kBool));
  cpu::dropout(x, p, seed, offset, out, mask);
  const std::vector<T> y = out.to_vector<T>();
  const std::vector<bool> m = mask.to_vector<bool>();
  const T scale = static_cast<T>(1.0 / (1.0 - p));
  for (int64_t i = 0; i < n; ++i) {
    const bool keep = rand_element(seed, offset, i) < 1.0 - p;
    ASSERT_EQ(m[i], keep) << "mask at " << i;
    ASSERT_EQ(y[i], static_cast<T>(xv[i]) * (keep ? scale : T(0))) << "out at " << i;
  }
}

TEST(RandomKernels, DropoutEqualsTheFormulaForAnySplit) {
  for_each_thread_count([&](int threads) {
    for (uint64_t seed : {uint64_t{5}, ~uint64_t{0}}) {
      for (uint64_t offset : kKernelOffsets) {
        for (int64_t n : kDrawSizes) {
          SCOPED_TRACE(::testing::Message() << "threads " << threads << " seed " << seed << " offset " << offset
                                            << " n " << n);
          check_dropout_kernel<float>(seed, offset, n, 0.5);
          check_dropout_kernel<double>(seed, offset, n, 0.25);
        }
      }
    }
  });
}

}  // namespace
}  // namespace nabla::testing

// CPU kernels of the random ops (ops/random_ops.cpp). Element i is a function
// of (seed, offset, i) only; these formulas are what every device's kernels
// must compute for a draw to be the same everywhere.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include "nabla/core/random.h"
#include "nabla/kernels/cpu/elementwise.h"
#include "nabla/kernels/cpu/fill_by_index.h"
#include "nabla/kernels/cpu/philox_draws.h"
#include "nabla/ops/kernel_registry.h"

namespace nabla {

extern const OpDef rand_op, normal_op, randint_op, bernoulli_scalar_op, bernoulli_op, randperm_op;

namespace {

uint64_t u64(int64_t attr) { return static_cast<uint64_t>(attr); }

// out[i] = factory_value(value(i, w)) for the contiguous `out`, w being
// element i's Philox words (cpu::for_each_draw: kPerCounter elements per
// counter); value is called from several threads.
template <int kPerCounter, class Fn>
void fill_draws(const Tensor& out, uint64_t seed, uint64_t offset, Fn&& value) {
  cpu::fill_by_range(out, [&](int64_t b, int64_t e, auto store) {
    cpu::for_each_draw<kPerCounter>(seed, offset, b, e, [&](int64_t i, const uint32_t* w) { store(i, value(i, w)); });
  });
}

// rand's element from its two words (rand's stream: two elements per
// counter, 53 bits each).
double uniform(const uint32_t* w) { return Philox::to_unit_double(w[0], w[1]); }
// The value rand stores for an element in float64: rounded through float, as
// every factory stores values (cpu::factory_value). bernoulli and randperm
// compare these values, so their results equal rand's.
double stored_uniform(const uint32_t* w) { return static_cast<double>(static_cast<float>(uniform(w))); }

// Attrs: size, dtype, seed, offset, device.
void rand_kernel(Inputs, const Attrs& a, std::span<Tensor> out) {
  const uint64_t seed = u64(a.i(2)), offset = u64(a.i(3));
  fill_draws<2>(out[0], seed, offset, [](int64_t, const uint32_t* w) { return uniform(w); });
}

// Attrs: size, dtype, seed, offset, mean (none: 0), std (none: 1), device.
// Box-Muller on two 53-bit uniforms per element, one Philox counter per
// element.
void normal_kernel(Inputs, const Attrs& a, std::span<Tensor> out) {
  const double mean = a.is_none(4) ? 0.0 : a.f(4), std = a.is_none(5) ? 1.0 : a.f(5);
  const uint64_t seed = u64(a.i(2)), offset = u64(a.i(3));
  fill_draws<1>(out[0], seed, offset, [&](int64_t, const uint32_t* w) {
    const double u1 = Philox::to_unit_double(w[0], w[1]);
    const double u2 = Philox::to_unit_double(w[2], w[3]);
    const double r = std::sqrt(-2.0 * std::log(1.0 - u1));
    return mean + std * r * std::cos(2.0 * std::numbers::pi * u2);
  });
}

// Attrs: size, dtype, seed, offset, low, high, device. 64 random bits modulo
// the range, one Philox counter per element.
void randint_kernel(Inputs, const Attrs& a, std::span<Tensor> out) {
  const int64_t low = a.i(4);
  const uint64_t range = static_cast<uint64_t>(a.i(5) - low);
  const uint64_t seed = u64(a.i(2)), offset = u64(a.i(3));
  fill_draws<1>(out[0], seed, offset, [&](int64_t, const uint32_t* w) {
    const uint64_t r = (uint64_t(w[0]) << 32 | w[1]) % range;
    return static_cast<double>(low + static_cast<int64_t>(r));
  });
}

// Attrs: size, dtype, seed, offset, p, device. 1 where rand's element < p.
void bernoulli_scalar_kernel(Inputs, const Attrs& a, std::span<Tensor> out) {
  const double p = a.f(4);
  const uint64_t seed = u64(a.i(2)), offset = u64(a.i(3));
  // A 0/1 from the comparison, not a ?: the compiler may branch on, which a
  // random draw mispredicts (dropout's loop took 4x as long).
  fill_draws<2>(out[0], seed, offset,
                [&](int64_t, const uint32_t* w) { return static_cast<double>(stored_uniform(w) < p); });
}

// Input p; attrs: seed, offset. out[i] = 1 where rand's element i < p[i].
// Like PyTorch, a p outside [0, 1] (or nan) is an error, not a silent 0 or 1.
void bernoulli_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const uint64_t seed = u64(a.i(0)), offset = u64(a.i(1));
  const Tensor p = cpu::contiguous_input(in[0]);
  visit_dtype(p.dtype(), [&]<class T>() {
    const T* pp = static_cast<const T*>(p.raw_data());
    for (int64_t i = 0; i < p.numel(); ++i) {
      const double v = static_cast<double>(pp[i]);
      NABLA_CHECK(v >= 0.0 && v <= 1.0, "bernoulli: p must be in [0, 1], got ", v, " at flat index ", i);
    }
    fill_draws<2>(out[0], seed, offset, [&](int64_t i, const uint32_t* w) {
      return static_cast<double>(stored_uniform(w) < static_cast<double>(pp[i]));  // 0/1 as above
    });
  });
}

// Attrs: n, dtype, seed, offset, device. The indices stably sorted by rand's
// elements: the permutation depends only on (seed, offset). A device without
// a sort of its own can compute the keys and sort them the same way.
void randperm_kernel(Inputs, const Attrs& a, std::span<Tensor> out) {
  const int64_t n = a.i(0);
  const uint64_t seed = u64(a.i(2)), offset = u64(a.i(3));
  std::vector<double> keys(static_cast<std::size_t>(n));
  std::vector<int64_t> perm(static_cast<std::size_t>(n));
  cpu::for_each_draw<2>(seed, offset, 0, n, [&](int64_t i, const uint32_t* w) {
    keys[i] = stored_uniform(w);
    perm[i] = i;
  });
  std::stable_sort(perm.begin(), perm.end(), [&](int64_t x, int64_t y) { return keys[x] < keys[y]; });
  visit_dtype(out[0].dtype(), [&]<class T>() {
    T* o = static_cast<T*>(out[0].raw_data());
    for (int64_t i = 0; i < n; ++i) {
      // As the cast op converts int64 (float64 holds every index exactly).
      if constexpr (std::is_same_v<T, double> || std::is_integral_v<T>) o[i] = static_cast<T>(perm[i]);
      else o[i] = static_cast<T>(static_cast<float>(perm[i]));
    }
  });
}

const KernelRegistrar kRand{rand_op, DeviceType::CPU, rand_kernel};
const KernelRegistrar kNormal{normal_op, DeviceType::CPU, normal_kernel};
const KernelRegistrar kRandint{randint_op, DeviceType::CPU, randint_kernel};
const KernelRegistrar kBernoulliScalar{bernoulli_scalar_op, DeviceType::CPU, bernoulli_scalar_kernel};
const KernelRegistrar kBernoulli{bernoulli_op, DeviceType::CPU, bernoulli_kernel};
const KernelRegistrar kRandperm{randperm_op, DeviceType::CPU, randperm_kernel};

}  // namespace
}  // namespace nabla

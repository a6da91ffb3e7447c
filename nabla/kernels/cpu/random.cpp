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
#include "nabla/ops/kernel_registry.h"

namespace nabla {

extern const OpDef rand_op, normal_op, randint_op, bernoulli_scalar_op, bernoulli_op, randperm_op;

namespace {

uint64_t u64(int64_t attr) { return static_cast<uint64_t>(attr); }

// Element i of rand's stream: two elements per Philox counter, 53 bits each.
double uniform_at(uint64_t seed, uint64_t offset, int64_t i) {
  auto w = Philox::at(seed, offset, static_cast<uint64_t>(i / 2));
  const int lane = static_cast<int>(i % 2) * 2;
  return Philox::to_unit_double(w[lane], w[lane + 1]);
}
// The value rand stores for element i in float64: rounded through float, as
// every factory stores values (cpu::factory_value). bernoulli and randperm
// compare these values, so their results equal rand's.
double stored_uniform_at(uint64_t seed, uint64_t offset, int64_t i) {
  return static_cast<double>(static_cast<float>(uniform_at(seed, offset, i)));
}

// Attrs: size, dtype, seed, offset, device.
void rand_kernel(Inputs, const Attrs& a, std::span<Tensor> out) {
  const uint64_t seed = u64(a.i(2)), offset = u64(a.i(3));
  cpu::fill_by_index(out[0], [&](int64_t i) { return uniform_at(seed, offset, i); });
}

// Attrs: size, dtype, seed, offset, mean (none: 0), std (none: 1), device.
// Box-Muller on two 53-bit uniforms per element, one Philox counter per
// element.
void normal_kernel(Inputs, const Attrs& a, std::span<Tensor> out) {
  const double mean = a.is_none(4) ? 0.0 : a.f(4), std = a.is_none(5) ? 1.0 : a.f(5);
  const uint64_t seed = u64(a.i(2)), offset = u64(a.i(3));
  cpu::fill_by_index(out[0], [&](int64_t i) {
    auto w = Philox::at(seed, offset, static_cast<uint64_t>(i));
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
  cpu::fill_by_index(out[0], [&](int64_t i) {
    auto w = Philox::at(seed, offset, static_cast<uint64_t>(i));
    const uint64_t r = (uint64_t(w[0]) << 32 | w[1]) % range;
    return static_cast<double>(low + static_cast<int64_t>(r));
  });
}

// Attrs: size, dtype, seed, offset, p, device. 1 where rand's element < p.
void bernoulli_scalar_kernel(Inputs, const Attrs& a, std::span<Tensor> out) {
  const double p = a.f(4);
  const uint64_t seed = u64(a.i(2)), offset = u64(a.i(3));
  cpu::fill_by_index(out[0], [&](int64_t i) { return stored_uniform_at(seed, offset, i) < p ? 1.0 : 0.0; });
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
    cpu::fill_by_index(out[0], [&](int64_t i) {
      return stored_uniform_at(seed, offset, i) < static_cast<double>(pp[i]) ? 1.0 : 0.0;
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
  for (int64_t i = 0; i < n; ++i) {
    keys[i] = stored_uniform_at(seed, offset, i);
    perm[i] = i;
  }
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

// OpInfo entries of the factory and random ops (ops/factory_ops.cpp,
// ops/random_ops.cpp). A factory has no tensor input: each entry's sample
// only carries the dtype and device under test (the suite casts it and moves
// it to the opaque device), and run() asks the factories for that dtype and
// device, through the *_like forms and TensorOptions. The random entries
// reseed inside run() and are referenced against the Philox stream computed
// here from (seed, offset, i), so on the opaque device they check that a draw
// there equals the CPU's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>

#include "support/op_info.h"

namespace nabla::testing {
namespace {

constexpr uint64_t kSeed = 20240611;

// The dtype and device of the sample under test.
TensorOptions options_of(const Tensor& x) { return TensorOptions(x.dtype()).device(x.device()); }

// Runs draws from a freshly seeded generator, leaving the generator as it was.
Tensors seeded(const std::function<Tensors()>& draws) {
  const GeneratorState before = default_generator().get_state();
  manual_seed(kSeed);
  Tensors out = draws();
  default_generator().set_state(before);
  return out;
}

std::vector<Tensors> carrier() { return {{sample({2, 3}, -2, 2, 31)}}; }

OpInfo factory_info(const std::string& name, const std::string& op, std::function<Tensors(const Tensors&)> run,
                    std::function<Tensors(const Tensors&)> reference,
                    std::function<std::vector<Tensors>()> samples = carrier) {
  OpInfo info = make_op_info(name, op, std::move(run), std::move(samples), std::move(reference));
  info.differentiable = false;  // factories and draws have no gradient
  info.noncontiguous = false;   // the sample's layout is not read
  return info;
}

Tensor constant(const Shape& shape, double v) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return from_values(std::vector<double>(static_cast<std::size_t>(n), v), shape);
}

NABLA_OP_INFO(factory_info(
    "factory_full", "full",
    [](const Tensors& in) {
      const Tensor& x = in[0];
      const TensorOptions o = options_of(x);
      return Tensors{zeros_like(x), ones_like(x), full_like(x, 2.5), zeros({3}, o), ones({2, 2}, o),
                     full({2}, -1.5, o), full({}, 7, o)};
    },
    [](const Tensors& in) {
      const Shape& s = in[0].sizes();
      return Tensors{constant(s, 0), constant(s, 1), constant(s, 2.5), constant({3}, 0), constant({2, 2}, 1),
                     constant({2}, -1.5), constant({}, 7)};
    }));

NABLA_OP_INFO(factory_info(
    "factory_arange", "arange",
    [](const Tensors& in) {
      const TensorOptions o = options_of(in[0]);
      return Tensors{arange(0.5, 3.0, 0.5, o), arange(3, o), arange(4.0, 0.0, -1.5, o), arange(2, 2, 1, o)};
    },
    [](const Tensors&) {
      return Tensors{from_values({0.5, 1, 1.5, 2, 2.5}, {5}), from_values({0, 1, 2}, {3}), from_values({4, 2.5, 1}, {3}),
                     from_values({}, {0})};
    }));

NABLA_OP_INFO(factory_info(
    "factory_linspace", "linspace",
    [](const Tensors& in) {
      const TensorOptions o = options_of(in[0]);
      return Tensors{linspace(-1, 1, 5, o), linspace(0, 1, 4, o), linspace(2, 3, 1, o), linspace(2, 3, 0, o)};
    },
    [](const Tensors&) {
      return Tensors{from_values({-1, -0.5, 0, 0.5, 1}, {5}), from_values({0, 1.0 / 3, 2.0 / 3, 1}, {4}),
                     from_values({2}, {1}), from_values({}, {0})};
    }));

NABLA_OP_INFO(factory_info(
    "factory_eye", "eye",
    [](const Tensors& in) {
      const TensorOptions o = options_of(in[0]);
      return Tensors{eye(3, std::nullopt, o), eye(2, 4, o), eye(3, 1, o), eye(0, std::nullopt, o)};
    },
    [](const Tensors&) {
      auto ref = [](int64_t n, int64_t m) {
        std::vector<double> v(static_cast<std::size_t>(n * m), 0.0);
        for (int64_t i = 0; i < std::min(n, m); ++i) v[static_cast<std::size_t>(i * m + i)] = 1.0;
        return from_values(v, {n, m});
      };
      return Tensors{ref(3, 3), ref(2, 4), ref(3, 1), ref(0, 0)};
    }));

// ---- the Philox stream, computed here as the reference ---------------------

// Element i of a uniform draw whose counters start at `offset`: two elements
// per counter, each from 53 bits (hi word << 21 ^ lo word >> 11) scaled to [0, 1).
double ref_uniform(uint64_t offset, int64_t i) {
  auto w = Philox::at(kSeed, offset, static_cast<uint64_t>(i / 2));
  uint32_t hi = w[(i % 2) * 2], lo = w[(i % 2) * 2 + 1];
  uint64_t bits = ((uint64_t(hi) << 21) ^ (lo >> 11)) & ((uint64_t(1) << 53) - 1);
  return std::ldexp(static_cast<double>(bits), -53);
}
// As factories store it (through float, in every floating dtype).
double ref_uniform_stored(uint64_t offset, int64_t i) { return static_cast<float>(ref_uniform(offset, i)); }

// Box-Muller on counter offset + i: words 0-1 give u1, words 2-3 give u2.
double ref_normal(uint64_t offset, int64_t i, double mean, double std) {
  auto w = Philox::at(kSeed, offset, static_cast<uint64_t>(i));
  auto unit = [](uint32_t hi, uint32_t lo) {
    return std::ldexp(static_cast<double>(((uint64_t(hi) << 21) ^ (lo >> 11)) & ((uint64_t(1) << 53) - 1)), -53);
  };
  double u1 = unit(w[0], w[1]), u2 = unit(w[2], w[3]);
  return mean + std * std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

Tensor ref_stream(const Shape& shape, const std::function<double(int64_t)>& f, DType dtype = kFloat64) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(f(i));
  return from_values(v, shape).to(dtype);
}

// Three draws in a row: each starts where the previous one's counters end.
NABLA_OP_INFO(factory_info(
    "random_rand", "rand",
    [](const Tensors& in) {
      const Tensor& x = in[0];
      return seeded([&] { return Tensors{rand({2, 3}, options_of(x)), rand_like(x), rand({3}, options_of(x))}; });
    },
    [](const Tensors& in) {
      return Tensors{ref_stream({2, 3}, [](int64_t i) { return ref_uniform(0, i); }),
                     ref_stream(in[0].sizes(), [](int64_t i) { return ref_uniform(3, i); }),
                     ref_stream({3}, [](int64_t i) { return ref_uniform(6, i); })};
    }));

NABLA_OP_INFO(factory_info(
    "random_normal", "normal",
    [](const Tensors& in) {
      const Tensor& x = in[0];
      return seeded([&] {
        return Tensors{randn({5}, options_of(x)), normal(2.0, 0.5, {3}, options_of(x)), randn_like(x)};
      });
    },
    [](const Tensors& in) {
      return Tensors{ref_stream({5}, [](int64_t i) { return ref_normal(0, i, 0, 1); }),
                     ref_stream({3}, [](int64_t i) { return ref_normal(5, i, 2.0, 0.5); }),
                     ref_stream(in[0].sizes(), [](int64_t i) { return ref_normal(8, i, 0, 1); })};
    }));

// 64 bits (word 0 << 32 | word 1) modulo the range, one counter per element.
double ref_randint(uint64_t offset, int64_t i, int64_t low, int64_t high) {
  auto w = Philox::at(kSeed, offset, static_cast<uint64_t>(i));
  return static_cast<double>(low + static_cast<int64_t>((uint64_t(w[0]) << 32 | w[1]) % uint64_t(high - low)));
}

NABLA_OP_INFO(factory_info(
    "random_randint", "randint",
    [](const Tensors& in) {
      const Tensor& x = in[0];
      return seeded([&] {
        return Tensors{randint(-3, 7, {2, 3}, TensorOptions(kInt64).device(x.device())),
                       randint(0, 5, {4}, options_of(x))};
      });
    },
    [](const Tensors&) {
      return Tensors{ref_stream({2, 3}, [](int64_t i) { return ref_randint(0, i, -3, 7); }, kInt64),
                     ref_stream({4}, [](int64_t i) { return ref_randint(6, i, 0, 5); })};
    }));

NABLA_OP_INFO(factory_info(
    "random_bernoulli_scalar", "bernoulli_scalar",
    [](const Tensors& in) {
      const Tensor& x = in[0];
      return seeded([&] { return Tensors{bernoulli({3, 4}, 0.3, options_of(x)), bernoulli({5}, 1.0, options_of(x))}; });
    },
    [](const Tensors&) {
      return Tensors{ref_stream({3, 4}, [](int64_t i) { return ref_uniform_stored(0, i) < 0.3 ? 1.0 : 0.0; }),
                     constant({5}, 1.0)};
    }));

// p is a real input here: the draw happens on p's device, in p's dtype.
NABLA_OP_INFO(factory_info(
    "random_bernoulli", "bernoulli",
    [](const Tensors& in) { return seeded([&] { return Tensors{bernoulli(in[0])}; }); },
    [](const Tensors& in) {
      std::vector<double> p = values(in[0]);
      return Tensors{ref_stream(in[0].sizes(), [&](int64_t i) {
        return ref_uniform_stored(0, i) < p[static_cast<std::size_t>(i)] ? 1.0 : 0.0;
      })};
    },
    [] {
      return std::vector<Tensors>{{from_values({0, 0.125, 0.25, 0.5, 0.625, 0.75, 0.875, 1}, {2, 4})},
                                  {from_values({0.5}, {})}};
    }));

// The indices stably sorted by their uniform keys.
Tensor ref_randperm(uint64_t offset, int64_t n, DType dtype) {
  std::vector<int64_t> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(),
                   [&](int64_t a, int64_t b) { return ref_uniform_stored(offset, a) < ref_uniform_stored(offset, b); });
  return ref_stream({n}, [&](int64_t i) { return static_cast<double>(perm[static_cast<std::size_t>(i)]); }, dtype);
}

NABLA_OP_INFO(factory_info(
    "random_randperm", "randperm",
    [](const Tensors& in) {
      const Tensor& x = in[0];
      return seeded([&] {
        return Tensors{randperm(9, TensorOptions(kInt64).device(x.device())), randperm(5, options_of(x)),
                       randperm(0, TensorOptions(kInt64).device(x.device()))};
      });
    },
    [](const Tensors&) {
      return Tensors{ref_randperm(0, 9, kInt64), ref_randperm(5, 5, kFloat64), ref_randperm(8, 0, kInt64)};
    }));

}  // namespace
}  // namespace nabla::testing

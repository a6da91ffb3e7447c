// The Adam update's division sqrt(v) / bias_correction2_sqrt
// (kernels/cpu/adam_update.cpp), which the loop does as a multiplication by
// the rounded reciprocal plus one fused multiply-add correction where the
// CPU has FMA: it must give the division's bits for every quotient, or the
// fused step would drift from PyTorch's Adam and from the tensor expressions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "nabla/kernels/cpu/adam_update.h"

namespace nabla {
namespace {

// Same bits (NaN: any NaN).
template <class T>
bool same(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// The divisors Adam makes, sqrt(1 - beta2^t), rounded to T as optim::Adam does.
template <class T>
std::vector<T> adam_divisors() {
  std::vector<T> cs;
  for (double beta2 : {0.999, 0.99, 0.9, 0.9999, 0.5, 0.0})
    for (int t = 1; t <= 300; t += (t < 20 ? 1 : 7)) cs.push_back(static_cast<T>(std::sqrt(1.0 - std::pow(beta2, t))));
  return cs;
}

TEST(AdamDivision, Float32EveryMantissaForAdamsDivisors) {
  // Scaling a by a power of two scales a / c exactly (no overflow or
  // underflow in the range the kernel takes), so every mantissa in [1, 2)
  // covers every normal dividend; a sample of divisors keeps it quick.
  std::vector<float> cs = adam_divisors<float>();
  std::vector<float> some;
  for (std::size_t i = 0; i < cs.size(); i += 9) some.push_back(cs[i]);
  some.push_back(1.0f);
  int64_t bad = 0;
  for (float c : some) {
    for (uint32_t m = 0; m < (1u << 23); m += 7) {
      const uint32_t bits = 0x3f800000u | m;
      float a;
      std::memcpy(&a, &bits, 4);
      if (!same(cpu::divide_by_constant(a, c), a / c) && bad++ < 5)
        ADD_FAILURE() << std::hexfloat << a << " / " << c << ": " << cpu::divide_by_constant(a, c) << ", division "
                      << a / c;
    }
  }
  EXPECT_EQ(bad, 0);
}

template <class T>
void random_quotients_match(int64_t per_divisor) {
  std::mt19937_64 rng(7);
  std::vector<T> cs = adam_divisors<T>();
  // Random divisors in [2^-60, 1], the edge mantissas among them.
  std::uniform_real_distribution<double> unit(0.5, 1.0);
  for (int i = 0; i < 200; ++i) cs.push_back(static_cast<T>(std::ldexp(unit(rng), -static_cast<int>(rng() % 60))));
  cs.push_back(std::nextafter(T(1), T(0)));
  cs.push_back(std::ldexp(T(1), -60));
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  int64_t bad = 0;
  for (T c : cs) {
    for (int64_t i = 0; i < per_divisor; ++i) {
      // a = sqrt(v) over the range of float32's square roots (2^-75 ..
      // 2^64), and a's edge mantissas.
      T a = static_cast<T>(std::ldexp(mant(rng), static_cast<int>(rng() % 138) - 75));
      if (i % 4 == 1) a = std::nextafter(std::ldexp(T(1), static_cast<int>(rng() % 60) - 30), T(0));
      if (i % 4 == 2) a = std::sqrt(static_cast<T>(std::ldexp(mant(rng), static_cast<int>(rng() % 200) - 100)));
      if (!same(cpu::divide_by_constant(a, c), a / c) && bad++ < 5)
        ADD_FAILURE() << std::hexfloat << a << " / " << c << ": " << cpu::divide_by_constant(a, c) << ", division "
                      << a / c;
    }
  }
  EXPECT_EQ(bad, 0);
}

TEST(AdamDivision, RandomQuotientsFloat32) { random_quotients_match<float>(20000); }
TEST(AdamDivision, RandomQuotientsFloat64) { random_quotients_match<double>(20000); }

template <class T>
void edges_match() {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const T max = std::numeric_limits<T>::max(), denorm = std::numeric_limits<T>::denorm_min();
  // Square roots of v's edges (0, inf, NaN, the largest and the smallest;
  // not -0, which the update's v never is), over divisors inside and outside
  // the range the correction takes (those divide).
  for (T v : {T(0), inf, nan, max, denorm, std::numeric_limits<T>::min(), T(1), T(-1)}) {
    const T a = std::sqrt(v);
    for (T c : {T(1), T(0.5), T(0.0316), std::ldexp(T(1), -60), std::ldexp(T(1), -61), T(2), T(0), T(-0.25), inf, nan,
                denorm}) {
      EXPECT_TRUE(same(cpu::divide_by_constant(a, c), a / c)) << std::hexfloat << a << " / " << c;
    }
  }
}

// div_by_constant leaves out -0 (it would give +0): the update's v never is
// -0, even from a -0 moment or a zero gradient, so sqrt(v) never is.
TEST(AdamDivision, TheUpdatesSecondMomentIsNeverNegativeZero) {
  for (double beta2 : {0.0, 0.999}) {
    cpu::AdamConstants c;
    c.beta2 = beta2;
    c.one_minus_beta2 = 1.0 - beta2;
    c.eps = 0;  // -0 against +0 would show in the update: m / (+-0) = +-inf
    float p[2] = {1.f, 2.f}, g[2] = {0.f, -0.f}, m[2] = {1.f, -1.f}, v[2] = {-0.f, -0.f};
    cpu::adam_update<float>(c, p, g, m, v, 2);
    for (float vi : v) EXPECT_FALSE(std::signbit(vi)) << "beta2 " << beta2;
    EXPECT_EQ(p[0], -INFINITY);
    EXPECT_EQ(p[1], INFINITY);
  }
}

TEST(AdamDivision, EdgesFloat32) { edges_match<float>(); }
TEST(AdamDivision, EdgesFloat64) { edges_match<double>(); }

}  // namespace
}  // namespace nabla

// Branch-free float32 math that the compiler vectorizes inside elementwise
// loops (std::exp/std::erf calls are opaque and run one element at a time).
// Accuracy: exp within 2 ulp over its range; erf within 2e-7 absolute. Used
// by float32 kernels only; float64 keeps <cmath>.
#pragma once
#include <bit>
#include <cstdint>

namespace nabla::cpu::vec {

// e^x: x = n ln2 + r, |r| <= ln2/2; e^r by a degree-6 polynomial; 2^n by
// building the exponent bits.
inline float exp(float x) {
  const float in = x;
  // Clamp so that NaN lands inside the range too (comparisons with NaN are
  // false): the conversion of n to int below is undefined for NaN. NaN is
  // given back at the end.
  x = x >= -87.3f ? x : -87.3f;
  x = x <= 88.7f ? x : 88.7f;
  // Round to nearest by adding and subtracting 1.5 * 2^23 (no libm call).
  float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  float r = x - n * 0.693145751953125f;  // ln2 split in two for precision
  r = r - n * 1.428606765330187e-06f;
  float p = 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float result = p * std::bit_cast<float>(bits);
  // Beyond float range: inf above, 0 below (skipping denormals), nan stays nan.
  result = in > 88.72284f ? __builtin_inff() : result;
  result = in < -87.3f ? 0.0f : result;
  return in != in ? in : result;
}

// erf(x) = 1 - erfc(|x|) with erfc from Numerical Recipes' Chebyshev fit
// (fractional error < 1.2e-7), sign restored.
inline float erf(float x) {
  float z = x < 0 ? -x : x;
  float t = 1.0f / (1.0f + 0.5f * z);
  float p = 0.17087277f;
  p = p * t - 0.82215223f;
  p = p * t + 1.48851587f;
  p = p * t - 1.13520398f;
  p = p * t + 0.27886807f;
  p = p * t - 0.18628806f;
  p = p * t + 0.09678418f;
  p = p * t + 0.37409196f;
  p = p * t + 1.00002368f;
  p = p * t - 1.26551223f;
  float erfc = t * exp(-z * z + p);
  float r = 1.0f - erfc;
  return x < 0 ? -r : r;
}

inline float sigmoid(float x) { return 1.0f / (1.0f + exp(-x)); }

}  // namespace nabla::cpu::vec

// Helpers shared by the recurrent and attention tests: the deterministic
// formulas of tests/nn/make_rnn_reference.py and tolerant comparisons.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "nabla/nabla.h"

namespace nabla::nn::testing {

// value_i = scale * sin(a * i + b) over the flat index, float64.
inline Tensor fill(IntList shape, const double (&f)[3]) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = f[2] * std::sin(f[0] * static_cast<double>(i) + f[1]);
  return tensor(v, shape);
}

// Parameter k (named_parameters() order), element i: scale * sin(0.37 i + 1.1 k + 0.3).
inline void set_params(Module& m, double scale) {
  NoGradGuard ng;
  int64_t k = 0;
  for (auto& [name, p] : m.named_parameters()) {
    std::vector<double> v(p.numel());
    for (std::size_t i = 0; i < v.size(); ++i)
      v[i] = scale * std::sin(0.37 * static_cast<double>(i) + 1.1 * static_cast<double>(k) + 0.3);
    p.copy_(tensor(v, p.sizes()));
    ++k;
  }
}

inline std::vector<std::string> param_names(const Module& m) {
  std::vector<std::string> r;
  for (auto& [name, p] : m.named_parameters()) r.push_back(name);
  return r;
}

// Every element within tol (absolute + relative); an empty expectation means
// "no such output" and requires an undefined tensor.
inline void expect_values(const Tensor& actual, const std::vector<double>& expected, double tol,
                          const std::string& what) {
  if (expected.empty()) {
    EXPECT_TRUE(!actual.defined() || actual.numel() == 0) << what << ": PyTorch has none";
    return;
  }
  ASSERT_TRUE(actual.defined()) << what << " is undefined";
  std::vector<double> a = actual.to_vector<double>();
  ASSERT_EQ(a.size(), expected.size()) << what;
  double worst = 0;
  std::size_t at = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    double err = std::abs(a[i] - expected[i]) / (1.0 + std::abs(expected[i]));
    if (!(err <= worst)) worst = err, at = i;
  }
  EXPECT_LE(worst, tol) << what << "[" << at << "] = " << a[at] << ", PyTorch " << expected[at];
}

}  // namespace nabla::nn::testing

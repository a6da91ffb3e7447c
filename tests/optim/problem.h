// The fixed problem of tests/optim: parameters w (2x3) and b (3) in float64,
// loss = sum((w * C + b - T)^2), exactly as tests/optim/make_reference.py
// builds it in PyTorch; and a relative-error check that records its maximum.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "nabla/nabla.h"
#include "optim/reference_values.h"

namespace nabla::optim::testing {

struct Problem {
  Tensor w = tensor(reference::kW0, {2, 3}, dtype(kFloat64).requires_grad());
  Tensor b = tensor(reference::kB0, {3}, dtype(kFloat64).requires_grad());
  Tensor c = tensor(reference::kC, {2, 3}, dtype(kFloat64));
  Tensor t = tensor(reference::kT, {2, 3}, dtype(kFloat64));
  void backward() const { (w * c + b - t).pow(2).sum().backward(); }
  std::vector<double> flat() const {
    std::vector<double> v = w.to_vector<double>(), vb = b.to_vector<double>();
    v.insert(v.end(), vb.begin(), vb.end());
    return v;
  }
};

inline const reference::OptimCase& optim_case(const std::string& name) {
  for (const auto& c : reference::kOptimCases)
    if (name == c.name) return c;
  throw Error("no reference case " + name);
}

// Largest |got - want| / |want| seen by expect_close in this process.
inline double& max_rel_error() {
  static double e = 0;
  return e;
}

inline void expect_close(const std::vector<double>& got, const std::vector<double>& want, const std::string& what,
                         double rel = 1e-6) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double err = std::abs(got[i] - want[i]);
    const double scale = std::max(std::abs(want[i]), 1e-12);
    max_rel_error() = std::max(max_rel_error(), err / scale);
    EXPECT_LE(err, rel * scale) << what << ", element " << i << ": got " << got[i] << ", PyTorch " << want[i];
  }
}

}  // namespace nabla::optim::testing

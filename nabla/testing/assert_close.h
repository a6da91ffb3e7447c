// nabla::testing::assert_close: PyTorch's torch.testing.assert_close for
// tests. Checks that two tensors have the same shape, dtype and device and
// that their values are close — |actual - expected| <= atol + rtol * |expected|
// elementwise, with per-dtype default tolerances — and throws nabla::Error
// with PyTorch's message otherwise (where and by how much they differ), so it
// works in any test framework:
//
//   nabla::testing::assert_close(y, expected);                               // dtype defaults
//   nabla::testing::assert_close(y, expected, {.rtol = 1e-4, .atol = 1e-6});  // both or neither
//
// See docs/testing.md.
#pragma once
#include <optional>
#include <string>

#include "nabla/core/tensor.h"

namespace nabla::testing {

struct CloseOptions {
  // Give both or neither. Left out: the defaults of the dtype (default_tolerances).
  std::optional<double> rtol;
  std::optional<double> atol;
  bool equal_nan = false;    // NaN == NaN only when asked, as in PyTorch
  bool check_dtype = true;   // false: compare in the promoted dtype, with the looser dtype's tolerances
  bool check_device = true;  // false: compare on the CPU
  // Context for the failure message: "assert_close: <msg>: Tensor-likes are not close! ..."
  // (PyTorch's msg replaces its message; here it is prepended).
  std::string msg;
};

struct Tolerances {
  double rtol = 0.0;
  double atol = 0.0;
};

// PyTorch's per-dtype defaults: float16 1e-3 / 1e-5, bfloat16 1.6e-2 / 1e-5,
// float32 1.3e-6 / 1e-5, float64 1e-7 / 1e-7; integers and bool 0 / 0 (exact).
Tolerances default_tolerances(DType dtype);

// Throws nabla::Error unless `actual` and `expected` are close (see above).
// Undefined tensors and bad tolerances are errors too.
void assert_close(const Tensor& actual, const Tensor& expected, const CloseOptions& options = {});

}  // namespace nabla::testing

// Turns oneDNN's convolution path on or off for one scope and restores the
// process-wide switch however the test ends.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "nabla/kernels/cpu/conv.h"
#include "nabla/nabla.h"

namespace nabla::testing {

struct OneDnnSwitch {
  explicit OneDnnSwitch(bool on) : saved(cpu::conv_onednn_enabled()) { cpu::set_conv_onednn_enabled(on); }
  ~OneDnnSwitch() { cpu::set_conv_onednn_enabled(saved); }
  OneDnnSwitch(const OneDnnSwitch&) = delete;
  OneDnnSwitch& operator=(const OneDnnSwitch&) = delete;
  bool saved;
};

// fn() computed with oneDNN's path off (the im2col kernels, the reference)
// and on (oneDNN, or the direct kernels it routes to), compared relative to
// the result's magnitude: float32 sums in different orders (a weight
// gradient sums 50k products per entry); float64 agrees to ~1e-15.
template <class Fn>
void expect_onednn_path_agrees(Fn fn, DType dt, const std::string& what) {
  Tensor ref, got;
  {
    OneDnnSwitch off(false);
    ref = fn();
  }
  {
    OneDnnSwitch on(true);
    got = fn();
  }
  ASSERT_EQ(ref.sizes(), got.sizes()) << what;
  ASSERT_EQ(got.dtype(), dt) << what;
  double scale = std::max(1.0, max(abs(ref)).item<double>());
  double tol = dt == kFloat64 ? 1e-13 : 2e-5;
  EXPECT_LT(max(abs(ref - got)).item<double>() / scale, tol) << what;
}

template <class Fn>
void expect_onednn_path_agrees(Fn fn, const std::string& what) {
  expect_onednn_path_agrees(fn, kFloat32, what);
}

// Sets oneDNN's Winograd switch (nabla/onednn.h) for one scope and restores
// it however the test ends.
struct WinogradSwitch {
  explicit WinogradSwitch(bool on) : saved(onednn::winograd()) { onednn::set_winograd(on); }
  ~WinogradSwitch() { onednn::set_winograd(saved); }
  WinogradSwitch(const WinogradSwitch&) = delete;
  WinogradSwitch& operator=(const WinogradSwitch&) = delete;
  bool saved;
};

}  // namespace nabla::testing

// relu, its backward (threshold_backward) and sum, whose CPU kernels take
// float16/bfloat16 themselves (kNativeReducedFloat: one pass, converting in
// registers), must give what the dispatcher's float32 fallback gives: the
// op on the widened tensors, rounded back. Bit for bit, over values that reach every branch: NaNs
// (quiet and signaling, in either operand), -0, +-inf, values at the
// threshold, broadcasting, and a strided operand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>

#include "nabla/nabla.h"

namespace nabla {
namespace {

constexpr double kReducedNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kReducedInf = std::numeric_limits<double>::infinity();

// Small integers and halves (many equal to a threshold of 0 or 0.5), with
// ~5% each of NaN, +-inf and -0; bfloat16 also gets signaling NaNs (quiet
// bit 0x40 clear), which rounding back through float32 quiets.
Tensor reduced_data(Shape sizes, DType dt) {
  Tensor x = randint(-4, 5, sizes).to(kFloat32) * 0.5;
  x = where(rand(sizes) < 0.05, full_like(x, kReducedNaN), x);
  x = where(rand(sizes) < 0.05, full_like(x, kReducedInf), x);
  x = where(rand(sizes) < 0.05, full_like(x, -kReducedInf), x);
  x = where(rand(sizes) < 0.05, full_like(x, -0.0), x);
  x = x.to(dt).contiguous();
  if (dt == kBFloat16) {
    BFloat16* p = x.data_ptr<BFloat16>();
    for (int64_t k = 3; k < x.numel(); k += 17) p[k].bits = k % 2 ? 0x7f81 : 0xffa0;
  }
  return x;
}

// Two float16/bfloat16 tensors' bits.
bool same_bits(const Tensor& a, const Tensor& b) {
  Tensor ca = a.contiguous(), cb = b.contiguous();
  return ca.dtype() == cb.dtype() && ca.sizes() == cb.sizes() &&
         std::memcmp(ca.raw_data(), cb.raw_data(), static_cast<std::size_t>(ca.numel()) * 2) == 0;
}

// The same, except that any NaN matches any NaN: where a sum meets two NaNs
// (or inf - inf), which NaN (payload, sign) comes out depends on the
// operand order the compiler chose, which differs between instantiations.
bool same_bits_or_both_nan(const Tensor& a, const Tensor& b) {
  Tensor fa = a.to(kFloat32).contiguous(), fb = b.to(kFloat32).contiguous();
  const float* pa = fa.data_ptr<float>();
  const float* pb = fb.data_ptr<float>();
  for (int64_t k = 0; k < fa.numel(); ++k)
    if (!(std::isnan(pa[k]) && std::isnan(pb[k])) && std::memcmp(pa + k, pb + k, sizeof(float)) != 0) return false;
  return a.dtype() == b.dtype() && a.sizes() == b.sizes();
}

using BinaryFn = std::function<Tensor(const Tensor&, const Tensor&)>;

void expect_float32_path(const std::string& name, const BinaryFn& fn) {
  for (DType dt : {kBFloat16, kFloat16}) {
    Tensor a = reduced_data({6, 37}, dt), b = reduced_data({6, 37}, dt), row = reduced_data({37}, dt);
    Tensor wide = reduced_data({37, 6}, dt).t();  // strided
    auto check = [&](const Tensor& x, const Tensor& y, const char* what) {
      const Tensor got = fn(x, y);
      ASSERT_EQ(got.dtype(), dt) << name << " " << what;
      EXPECT_TRUE(same_bits(got, fn(x.to(kFloat32), y.to(kFloat32)).to(dt))) << name << " " << dt << " " << what;
    };
    check(a, b, "same shape");
    check(a, row, "broadcast row");
    check(wide, a, "strided operand");
  }
}

TEST(ReducedFloatKernels, ThresholdBackwardIsTheFloat32PathRoundedBack) {
  manual_seed(11);
  for (double t : {0.0, 0.5, -1.0})
    expect_float32_path("threshold_backward(" + std::to_string(t) + ")",
                        [t](const Tensor& g, const Tensor& x) { return threshold_backward(g, x, t); });
}

// (add, sub and mul are native too, but with two NaN operands which
// NaN's payload comes out depends on the loop's operand order, which
// differs between their kernels and the float32 fallback's.)
TEST(ReducedFloatKernels, ReluIsTheFloat32PathRoundedBack) {
  manual_seed(12);
  expect_float32_path("relu", [](const Tensor& x, const Tensor&) { return relu(x); });
}

// sum widens in its loops: every path of kernels/cpu/reduce.cpp (rows,
// leading dims, channels-last planes and leading dims, a strided input),
// against the float32 kernel on the widened tensor of the same layout, with
// and without NaN/inf among the values.
TEST(ReducedFloatKernels, SumIsTheFloat32PathRoundedBack) {
  manual_seed(14);
  const Shape dim_sets[] = {{2, 3}, {0, 2, 3}, {1}, {0}, {0, 1, 2, 3}, {3}};
  for (DType dt : {kBFloat16, kFloat16}) {
    // Magnitudes over 2^-12 .. 2^12, so that the float32 sums round (a
    // float64 sum would differ), plus the NaN/inf of reduced_data.
    const Shape sizes{4, 6, 9, 11};
    Tensor spread = (randn(sizes) * exp2(randint(-12, 13, sizes).to(kFloat32))).to(dt);
    Tensor x = where(isfinite(reduced_data(sizes, dt)), spread, reduced_data(sizes, dt));
    Tensor finite = where(isfinite(x), x, zeros_like(x));
    for (const Tensor& t : {x, finite}) {
      const Tensor layouts[] = {t, contiguous(t, MemoryFormat::ChannelsLast), t.transpose(1, 3)};
      for (const Tensor& v : layouts)
        for (const Shape& dims : dim_sets) {
          Tensor wide = v.to(kFloat32);
          if (!v.is_contiguous() && is_contiguous(v, MemoryFormat::ChannelsLast))
            wide = contiguous(wide, MemoryFormat::ChannelsLast);
          const Tensor got = sum(v, dims);
          ASSERT_EQ(got.dtype(), dt);
          EXPECT_TRUE(same_bits_or_both_nan(got, sum(wide, dims).to(dt)))
              << dt << " sum over " << ::nabla::detail::concat(dims) << (v.is_contiguous() ? "" : " (not contiguous)") << (&t == &finite ? " finite" : " with NaN");
          const Tensor as_float32 = sum(v, dims, false, kFloat32), want32 = sum(wide, dims);
          EXPECT_TRUE(same_bits_or_both_nan(as_float32, want32))
              << dt << " sum over " << ::nabla::detail::concat(dims) << " as float32";
        }
    }
  }
}

}  // namespace
}  // namespace nabla

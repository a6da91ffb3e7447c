// relu and its backward (threshold_backward), whose CPU kernels take
// float16/bfloat16 themselves (kNativeReducedFloat: one pass, converting in
// registers), must give what the dispatcher's float32 fallback gives: the
// op on the widened tensors, rounded back. Bit for bit, over values that reach every branch: NaNs
// (quiet and signaling, in either operand), -0, +-inf, values at the
// threshold, broadcasting, and a strided operand.
#include <gtest/gtest.h>

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

bool same_bits(const Tensor& a, const Tensor& b) {
  Tensor ca = a.contiguous(), cb = b.contiguous();
  return ca.dtype() == cb.dtype() && ca.sizes() == cb.sizes() &&
         std::memcmp(ca.raw_data(), cb.raw_data(), static_cast<std::size_t>(ca.numel()) * 2) == 0;
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

}  // namespace
}  // namespace nabla

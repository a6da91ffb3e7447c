// nabla::testing::assert_close against torch.testing.assert_close (issue 14,
// acceptance item 2): the same cases fail with PyTorch 1.13's message
// (assert_close_messages.h, from make_assert_close_messages.py), and pass
// where PyTorch passes.
#include "nabla/testing/assert_close.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <string>

#include "nabla/nabla.h"
#include "testing/assert_close_messages.h"

namespace {

using namespace nabla;
using nabla::testing::assert_close;
using nabla::testing::CloseOptions;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// The message assert_close throws, or "" when it passes.
std::string failure(const Tensor& a, const Tensor& e, const CloseOptions& o = {}) {
  try {
    assert_close(a, e, o);
  } catch (const Error& err) {
    return err.what();
  }
  return "";
}

struct Case {
  Tensor actual, expected;
  CloseOptions options;
};

// The cases of make_assert_close_messages.py, built from the same values.
std::map<std::string, std::function<Case()>> cases() {
  return {
      {"two_by_three",
       [] {
         return Case{tensor({{1., 2., 3.}, {4., 5., 6.}}), tensor({{1.25, 2., 3.}, {4., 5., 6.5}})};
       }},
      {"scalar",
       [] {
         return Case{full({}, 1.0), full({}, 1.5)};
       }},
      {"scalar_int",
       [] {
         return Case{full({}, 3, kInt64), full({}, 5, kInt64)};
       }},
      {"int_exact",
       [] {
         return Case{tensor({1, 2, 3}, kInt64), tensor({1, 2, 4}, kInt64)};
       }},
      {"int_rel_float32",
       [] {
         return Case{tensor({5, 7}, kInt64), tensor({3, 7}, kInt64)};
       }},
      {"bool",
       [] {
         return Case{tensor({1, 0}, kBool), tensor({1, 1}, kBool)};
       }},
      {"nan_not_equal",
       [] {
         return Case{tensor({1., kNaN}), tensor({1., kNaN})};
       }},
      {"inf_opposite",
       [] {
         return Case{tensor({1., kInf, 0.}), tensor({1., -kInf, 1e-6})};
       }},
      {"float32_diff_as_float64",
       [] {
         return Case{tensor({0.1, 3.0}), tensor({0.2, 3.0})};
       }},
      {"large_values",
       [] {
         return Case{tensor({1e10, 2.0}), tensor({1.00001e10, 2.0})};
       }},
      {"explicit_tolerances",
       [] {
         return Case{tensor({1., 2., 3.}), tensor({1.1, 2., 3.5}), {.rtol = 0.0, .atol = 0.2}};
       }},
      {"expected_zero",
       [] {
         return Case{tensor({0.5, 0.}), tensor({0., 0.})};
       }},
      {"float64",
       [] {
         return Case{tensor({1., 2.}, kFloat64), tensor({1.000001, 2.}, kFloat64)};
       }},
      {"float16",
       [] {
         return Case{tensor({1., 2.}, kFloat16), tensor({1.01, 2.}, kFloat16)};
       }},
  };
}

TEST(AssertClose, FailsWithPyTorchsMessage) {
  int checked = 0;
  for (const auto& [name, make] : cases()) {
    Case c = make();
    EXPECT_EQ(failure(c.actual, c.expected, c.options), "assert_close: " + kTorchAssertCloseMessages.at(name)) << name;
    ++checked;
  }
  EXPECT_EQ(checked, 14);
}

// PyTorch prints torch.Size([2, 3]) and torch.float32; nabla its own names.
TEST(AssertClose, ShapeDtypeAndDeviceAreChecked) {
  EXPECT_EQ(failure(zeros({2, 3}), zeros({3, 2})),
            "assert_close: The values for attribute 'shape' do not match: [2, 3] != [3, 2].");
  EXPECT_NE(kTorchAssertCloseMessages.at("shape").find("attribute 'shape' do not match"), std::string::npos);
  EXPECT_EQ(failure(zeros({2}), zeros({2}, kFloat64)),
            "assert_close: The values for attribute 'dtype' do not match: float32 != float64.");
  EXPECT_EQ(failure(zeros({2}, kInt32), zeros({2}, kInt64)),
            "assert_close: The values for attribute 'dtype' do not match: int32 != int64.");
  // check_dtype = false compares the values, with the looser dtype's tolerances.
  EXPECT_EQ(failure(tensor({1., 2.}), tensor({1., 2.}, kFloat64), {.check_dtype = false}), "");
  EXPECT_EQ(failure(tensor({1, 2}, kInt32), tensor({1, 2}, kInt64), {.check_dtype = false}), "");
  EXPECT_NE(failure(tensor({1, 2}, kInt32), tensor({1, 3}, kInt64), {.check_dtype = false}), "");
  EXPECT_EQ(failure(tensor({1., 2.}, kFloat16), tensor({1.0005, 2.}, kFloat64), {.check_dtype = false}), "");
  // A shape mismatch is reported even when values would broadcast.
  EXPECT_NE(failure(zeros({1, 3}), zeros({3})), "");
}

TEST(AssertClose, DefaultTolerancesPerDtype) {
  using nabla::testing::default_tolerances;
  EXPECT_EQ(default_tolerances(kFloat16).rtol, 1e-3);
  EXPECT_EQ(default_tolerances(kFloat16).atol, 1e-5);
  EXPECT_EQ(default_tolerances(kBFloat16).rtol, 1.6e-2);
  EXPECT_EQ(default_tolerances(kBFloat16).atol, 1e-5);
  EXPECT_EQ(default_tolerances(kFloat32).rtol, 1.3e-6);
  EXPECT_EQ(default_tolerances(kFloat32).atol, 1e-5);
  EXPECT_EQ(default_tolerances(kFloat64).rtol, 1e-7);
  EXPECT_EQ(default_tolerances(kFloat64).atol, 1e-7);
  for (DType d : {kBool, kUInt8, kInt32, kInt64}) {
    EXPECT_EQ(default_tolerances(d).rtol, 0.0) << d;
    EXPECT_EQ(default_tolerances(d).atol, 0.0) << d;
  }
  // The defaults at work: float32 1 + 1e-6 is within 1e-5 + 1.3e-6; 1e-4 off is not.
  EXPECT_EQ(failure(tensor({1.0 + 1e-6}), tensor({1.0})), "");
  EXPECT_NE(failure(tensor({1.0 + 1e-4}), tensor({1.0})), "");
  // float64 is tighter: 1e-6 off fails.
  EXPECT_NE(failure(tensor({1.0 + 1e-6}, kFloat64), tensor({1.0}, kFloat64)), "");
  // bfloat16: 1 vs 1.0078125 (one ulp) is within rtol 1.6e-2.
  EXPECT_EQ(failure(tensor({1.0078125}, kBFloat16), tensor({1.0}, kBFloat16)), "");
  // Integers are exact, unless tolerances are given.
  EXPECT_NE(failure(tensor({100}, kInt64), tensor({101}, kInt64)), "");
  EXPECT_EQ(failure(tensor({100}, kInt64), tensor({101}, kInt64), {.rtol = 0.0, .atol = 1.0}), "");
}

TEST(AssertClose, NaNAndInfinities) {
  Tensor with_nan = tensor({1., kNaN, 3.});
  EXPECT_NE(failure(with_nan, with_nan), "");  // NaN != NaN by default, as in PyTorch
  EXPECT_EQ(failure(with_nan, with_nan, {.equal_nan = true}), "");
  EXPECT_NE(failure(with_nan, tensor({1., 2., 3.}), {.equal_nan = true}), "");
  EXPECT_EQ(failure(tensor({kInf, -kInf}), tensor({kInf, -kInf})), "");  // equal infinities are close
  EXPECT_NE(failure(tensor({kInf}), tensor({1e38})), "");
  // No tolerance makes a finite value close to an infinity.
  EXPECT_NE(failure(tensor({kInf}), tensor({1e38}), {.rtol = 1e30, .atol = 1e30}), "");
}

TEST(AssertClose, BadArgumentsAreErrors) {
  EXPECT_EQ(failure(zeros({2}), zeros({2}), {.atol = 1e-3}),
            "assert_close: rtol and atol must be given together or both left out (as in PyTorch), got only atol");
  EXPECT_EQ(failure(zeros({2}), zeros({2}), {.rtol = 1e-3}),
            "assert_close: rtol and atol must be given together or both left out (as in PyTorch), got only rtol");
  EXPECT_NE(failure(zeros({2}), zeros({2}), {.rtol = -1.0, .atol = 0.0}).find("must be >= 0"), std::string::npos);
  EXPECT_EQ(failure(Tensor(), zeros({2})),
            "assert_close: got an undefined tensor as actual; expected two defined tensors");
}

TEST(AssertClose, MessageContextAndViews) {
  EXPECT_EQ(failure(tensor({1.}), tensor({2.}), {.msg = "layer 3"}).rfind("assert_close: layer 3: Tensor-likes", 0),
            0u);
  // Non-contiguous inputs compare by value; the index is in the view's shape.
  Tensor a = arange(6).to(kFloat32).reshape({2, 3});
  Tensor b = a.t().contiguous().t().clone();
  EXPECT_EQ(failure(a.t(), b.t()), "");
  Tensor c = tensor({{0., 1., 2.}, {9., 4., 5.}});  // a with [1, 0] changed
  EXPECT_NE(failure(a.t(), c.t()).find("at index (0, 1)"), std::string::npos) << failure(a.t(), c.t());
  // Empty tensors of equal shape are close.
  EXPECT_EQ(failure(zeros({0, 3}), zeros({0, 3})), "");
}

}  // namespace

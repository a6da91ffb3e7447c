// equal, isclose and allclose (free functions and methods) against PyTorch
// 1.13 on edge pairs: tests/ops/closeness_reference.h, from
// make_closeness_reference.py.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "nabla/nabla.h"
#include "ops/closeness_reference.h"
#include "support/dtype_named.h"

namespace nabla::testing {
namespace {

using closeness_reference::CloseCase;
using closeness_reference::CloseTensor;
using closeness_reference::kCloseCases;

Tensor make(const CloseTensor& t) {
  return tensor(t.values, IntList(t.shape.data(), t.shape.size())).to(dtype_named(t.dtype));
}

std::string describe(const CloseCase& c) {
  auto one = [](const CloseTensor& t) {
    std::string s = std::string(t.dtype) + "[";
    for (double v : t.values) s += std::to_string(v) + " ";
    return s + "]";
  };
  return one(c.a) + " vs " + one(c.b) + " rtol " + std::to_string(c.rtol) + " atol " + std::to_string(c.atol) +
         (c.equal_nan ? " equal_nan" : "");
}

TEST(Closeness, MatchesPyTorch) {
  int pairs = 0, checks = 0;
  for (const CloseCase& c : kCloseCases) {
    SCOPED_TRACE(describe(c));
    Tensor a = make(c.a), b = make(c.b);
    pairs++;
    // equal
    if (c.equal < 0) {
      EXPECT_THROW(equal(a, b), Error);
    } else {
      EXPECT_EQ(equal(a, b), c.equal == 1);
      EXPECT_EQ(a.equal(b), c.equal == 1);
    }
    // isclose
    if (c.isclose_raises) {
      EXPECT_THROW(isclose(a, b, c.rtol, c.atol, c.equal_nan), Error) << "PyTorch: " << c.error;
      EXPECT_THROW(a.isclose(b, c.rtol, c.atol, c.equal_nan), Error);
    } else {
      Tensor r = isclose(a, b, c.rtol, c.atol, c.equal_nan);
      EXPECT_EQ(r.dtype(), kBool);
      EXPECT_EQ(r.sizes(), Shape(c.isclose_shape.begin(), c.isclose_shape.end()));
      std::vector<bool> want(c.isclose.begin(), c.isclose.end());
      EXPECT_EQ(r.to_vector<bool>(), want);
      EXPECT_EQ(a.isclose(b, c.rtol, c.atol, c.equal_nan).to_vector<bool>(), want);
    }
    // allclose
    if (c.allclose < 0) {
      EXPECT_THROW(allclose(a, b, c.rtol, c.atol, c.equal_nan), Error);
    } else {
      EXPECT_EQ(allclose(a, b, c.rtol, c.atol, c.equal_nan), c.allclose == 1);
      EXPECT_EQ(a.allclose(b, c.rtol, c.atol, c.equal_nan), c.allclose == 1);
    }
    checks += 3;
  }
  std::cout << "closeness: " << pairs << " pairs, " << checks << " comparisons with PyTorch\n";
}

TEST(Closeness, DefaultsArePyTorchs) {
  Tensor one = tensor({1.0});
  EXPECT_TRUE(allclose(one, one + 1e-5 * 0.99));  // rtol 1e-5
  EXPECT_FALSE(allclose(one, one + 1e-5 * 1.5));
  EXPECT_TRUE(allclose(tensor({0.0}), tensor({0.99e-8})));  // atol 1e-8
  EXPECT_FALSE(allclose(tensor({0.0}), tensor({1.5e-8})));
  Tensor nan = tensor({std::nan("")});
  EXPECT_FALSE(allclose(nan, nan));  // equal_nan false
  EXPECT_TRUE(allclose(nan, nan, 1e-5, 1e-8, /*equal_nan=*/true));
}

TEST(Closeness, ErrorsNameTheFunctionCalled) {
  auto starts = [](const std::function<void()>& f, const std::string& name) {
    try {
      f();
      ADD_FAILURE() << name << ": no error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind(name + ":", 0), 0u) << e.what();
    }
  };
  Tensor f32 = zeros({2}), f64 = zeros({2}, dtype(kFloat64)), undefined;
  starts([&] { isclose(f32, f64); }, "isclose");
  starts([&] { allclose(f32, f64); }, "allclose");
  starts([&] { allclose(f32, zeros({3})); }, "allclose");
  starts([&] { equal(f32, undefined); }, "equal");
  starts([&] { undefined.equal(f32); }, "Tensor::equal");
  starts([&] { isclose(f32, f32, -1.0); }, "isclose");
}

TEST(Closeness, AllAndAnyMethods) {
  Tensor m = tensor({{1.0, 0.0}, {1.0, 1.0}}).to(kBool);
  EXPECT_FALSE(m.all().item<bool>());
  EXPECT_TRUE(m.any().item<bool>());
  EXPECT_EQ(m.all({1}).to_vector<bool>(), (std::vector<bool>{false, true}));
  EXPECT_EQ(m.any({0}, /*keepdim=*/true).sizes(), Shape({1, 2}));
}

}  // namespace
}  // namespace nabla::testing

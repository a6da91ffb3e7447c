// The index-driven OpenCL kernels (kernels/accel/indexing.cpp, rearrange.cpp
// and the range factories) at the edges the op table does not reach: index
// errors (the CPU's message, raised from the device's flag), empty tensors,
// integer, bool and float16 dtypes, non-contiguous and broadcast inputs,
// repeated indices (the last write wins, sums in the CPU's order), ranks
// past the kernels' limit, and factory values bit for bit.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "nabla/nabla.h"
#include "opencl/opencl_test_util.h"
#include "support/devices.h"

namespace nabla::testing {
namespace {

// f on CPU tensors and on their OpenCL copies: the same dtype, shape and
// values, bit for bit.
void same_on_both(const std::function<Tensor(const std::vector<Tensor>&)>& f, const std::vector<Tensor>& inputs) {
  std::vector<Tensor> on_cl;
  for (const Tensor& t : inputs) on_cl.push_back(t.to(kCl));
  const Tensor expected = f(inputs), actual = f(on_cl);
  EXPECT_EQ(actual.device(), kCl);
  ASSERT_EQ(actual.dtype(), expected.dtype());
  ASSERT_EQ(actual.sizes(), expected.sizes());
  const Tensor back = actual.cpu();
  if (is_floating(expected.dtype()) && expected.dtype() != kFloat64) {
    EXPECT_TRUE(equal(back.to(kFloat64), expected.to(kFloat64))) << "got " << back << "\nexpected " << expected;
  } else {
    EXPECT_TRUE(equal(back, expected)) << "got " << back << "\nexpected " << expected;
  }
}

// The message f raises on the CPU inputs, and the one it raises on their
// OpenCL copies: the same, and about `topic`.
void same_error_on_both(const std::function<Tensor(const std::vector<Tensor>&)>& f, const std::vector<Tensor>& inputs,
                        const std::string& topic = "out of") {
  std::string on_cpu, on_cl;
  try {
    f(inputs);
  } catch (const Error& e) {
    on_cpu = e.what();
  }
  std::vector<Tensor> moved;
  for (const Tensor& t : inputs) moved.push_back(t.to(kCl));
  try {
    f(moved).cpu();
  } catch (const Error& e) {
    on_cl = e.what();
  }
  ASSERT_FALSE(on_cpu.empty()) << "the CPU raised nothing";
  EXPECT_NE(on_cpu.find(topic), std::string::npos) << on_cpu;
  EXPECT_EQ(on_cl, on_cpu);
}

Tensor shaped_ints(std::vector<int64_t> v, Shape s) { return tensor(v).reshape(s); }

// An op of the table called directly (backward ops, or attrs the public
// functions compute themselves).
Tensor call_op(const char* name, std::initializer_list<Tensor> in, const Attrs& attrs) {
  const OpDef* op = find_op(name);
  NABLA_CHECK(op, "no op named ", name);
  return call1(*op, in, attrs);
}

TEST(OpenCLIndexing, OutOfRangeIndicesRaiseTheCpusError) {
  NABLA_SKIP_WITHOUT_OPENCL();
  const Tensor x = arange(12, kFloat64).reshape({3, 4});
  const Tensor bad = shaped_ints({0, 1, 7, 2, -1, 0}, {2, 3});
  same_error_on_both([](auto& t) { return gather(t[0], 1, t[1]); }, {x, bad});
  same_error_on_both([](auto& t) { return scatter(t[0], 1, t[1], t[2]); }, {x, bad, ones({2, 3}, kFloat64)});
  same_error_on_both([](auto& t) { return scatter(t[0], 1, t[1], Scalar(5.0)); }, {x, bad});
  same_error_on_both([](auto& t) { return scatter_add(t[0], 1, t[1], t[2]); }, {x, bad, ones({2, 3}, kFloat64)});
  same_error_on_both([](auto& t) { return index_select(t[0], 0, t[1]); }, {x, shaped_ints({0, 3}, {2})});
  same_error_on_both([](auto& t) { return index_add(t[0], 0, t[1], t[2]); },
                     {x, shaped_ints({-1, 0}, {2}), ones({2, 4}, kFloat64)});
  same_error_on_both([](auto& t) { return take(t[0], t[1]); }, {x, shaped_ints({3, -13}, {2})});
  same_error_on_both([](auto& t) { return one_hot(t[0], 3); }, {shaped_ints({0, 2, 3}, {3})});
  same_error_on_both([](auto& t) { return embedding(t[0], t[1]); }, {shaped_ints({1, 5}, {2}), x});
  same_error_on_both([](auto& t) { return embedding(t[0].to(kInt32), t[1]); }, {shaped_ints({1, 3}, {2}), x});
  // With 0 columns no element is read, but the indices are checked still.
  same_error_on_both([](auto& t) { return embedding(t[0], t[1]); }, {shaped_ints({4}, {1}), zeros({3, 0})});
  // The backward ops, called directly (autograd would reject changed indices first).
  same_error_on_both(
      [](auto& t) {
        return call_op("embedding_backward", {t[0], t[1]}, {int64_t{3}, int64_t{-1}});
      },
      {ones({2, 4}, kFloat64), shaped_ints({1, 9}, {2})});
  same_error_on_both(
      [](auto& t) {
        return call_op("embedding_backward", {t[0], t[1]}, {int64_t{3}, int64_t{-1}});
      },
      {ones({2, 0}, kFloat64), shaped_ints({1, -2}, {2})});
  // masked_select's count is an attr: a wrong one is an error, not a write
  // past the output.
  same_error_on_both(
      [](auto& t) {
        return call_op("masked_select", {t[0], t[1]}, {int64_t{1}});
      },
      {x, shaped_ints({1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1}, {3, 4}).to(kBool)}, "true elements");
  // A valid call after a failed one: every call gets a fresh flag.
  same_on_both([](auto& t) { return gather(t[0], 1, t[1]); }, {x, shaped_ints({3, 0, 1}, {3, 1})});
}

TEST(OpenCLIndexing, EmptyTensors) {
  NABLA_SKIP_WITHOUT_OPENCL();
  const Tensor x = arange(6, kFloat32).reshape({2, 3});
  const Tensor none = zeros({0}, kInt64);
  same_on_both([](auto& t) { return index_select(t[0], 1, t[1]); }, {x, none});
  same_on_both([](auto& t) { return gather(t[0], 0, t[1]); }, {x, zeros({0, 3}, kInt64)});
  same_on_both([](auto& t) { return take(t[0], t[1]); }, {x, none});
  same_on_both([](auto& t) { return masked_select(t[0], t[1]); }, {x, zeros({2, 3}, kBool)});
  same_on_both([](auto& t) { return cat({t[0], t[1], t[0]}, 0); }, {x, zeros({0, 3})});
  same_on_both([](auto& t) { return embedding(t[0], t[1]); }, {none.reshape({0, 2}), x});
  same_on_both([](auto& t) { return one_hot(t[0], 4); }, {none});
  same_on_both([](auto& t) { return flip(t[0], {0, 1}); }, {zeros({0, 3})});
  same_on_both([](auto& t) { return tril(t[0]); }, {zeros({2, 0, 3})});
  same_on_both([](auto& t) { return nabla::pad(t[0], {1, 1}); }, {zeros({0, 3})});
  same_on_both([](auto& t) { return index_add(t[0], 0, t[1], t[2]); }, {x, none, zeros({0, 3})});
  same_on_both([](auto& t) { return scatter_add(t[0], 0, t[1], t[2]); }, {x, zeros({0, 3}, kInt64), zeros({0, 3})});
  EXPECT_EQ(arange(0, kCl).numel(), 0);
  EXPECT_EQ(linspace(0, 1, 0, kCl).numel(), 0);
  EXPECT_EQ(eye(0, 3, kCl).sizes(), Shape({0, 3}));
}

TEST(OpenCLIndexing, IntegerBoolAndFloat16Dtypes) {
  NABLA_SKIP_WITHOUT_OPENCL();
  const Tensor index = shaped_ints({2, 0, 1, 1, 2, 0}, {2, 3});
  for (DType t : {kInt64, kInt32, kUInt8, kBool, kFloat16}) {
    SCOPED_TRACE(std::string(dtype_name(t)));
    const Tensor x = arange(9, kInt64).reshape({3, 3}).remainder(2 + (t == kBool ? 0 : 5)).to(t);
    same_on_both([](auto& v) { return gather(v[0], 1, v[1]); }, {x, index});
    same_on_both([](auto& v) { return scatter(v[0], 0, v[1], v[0]); }, {x, index});
    same_on_both([](auto& v) { return index_select(v[0], 0, v[1]); }, {x, shaped_ints({2, 2, 0}, {3})});
    same_on_both([](auto& v) { return take(v[0], v[1]); }, {x, shaped_ints({-1, 4, 8}, {3})});
    same_on_both([](auto& v) { return masked_select(v[0], v[1]); }, {x, x.to(kInt64).remainder(2).to(kBool)});
    same_on_both([](auto& v) { return cat({v[0], v[0]}, 1); }, {x});
    same_on_both([](auto& v) { return flip(v[0], {1}); }, {x});
    same_on_both([](auto& v) { return triu(v[0], -1); }, {x});
    same_on_both([](auto& v) { return nabla::pad(v[0].unsqueeze(0), {2, 1}, "reflect"); }, {x});
    if (t != kFloat16) {
      same_on_both([](auto& v) { return scatter_add(v[0], 0, v[1], v[0]); }, {x, index});
      same_on_both([](auto& v) { return index_add(v[0], 1, v[1], v[0]); }, {x, shaped_ints({2, 2, 0}, {3})});
      same_on_both([](auto& v) { return scatter(v[0], 1, v[1], Scalar(1)); }, {x, index});
    }
  }
}

TEST(OpenCLIndexing, NonContiguousAndBroadcastInputs) {
  NABLA_SKIP_WITHOUT_OPENCL();
  const Tensor x = arange(24, kFloat64).reshape({4, 6}).t();        // [6, 4], strides (1, 6)
  const Tensor index = shaped_ints({3, 0, 5, 1, 2, 2, 0, 4}, {4, 2}).t();  // [2, 4], transposed
  same_on_both([](auto& t) { return gather(t[0], 0, t[1]); }, {x, index});
  same_on_both([](auto& t) { return scatter(t[0], 0, t[1], t[0]); }, {x, index});
  same_on_both([](auto& t) { return scatter_add(t[0], 0, t[1], t[0] * 0.1); }, {x, index});
  same_on_both([](auto& t) { return index_select(t[0], 1, t[1]); },
               {x, shaped_ints({3, 1, 3, 2, 0, 1}, {3, 2}).select(1, 0)});
  same_on_both([](auto& t) { return index_add(t[0], 1, t[1], t[2]); },
               {x, shaped_ints({3, 3, 0}, {3}), arange(18, kFloat64).reshape({3, 6}).t()});
  same_on_both([](auto& t) { return take(t[0], t[1]); }, {x, index});
  same_on_both([](auto& t) { return flip(flip(t[0], {0}), {0, 1}); }, {x});
  same_on_both([](auto& t) { return cat({t[0], t[0].slice(1, 1, 3)}, 1); }, {x});
  same_on_both([](auto& t) { return tril(t[0], 1); }, {x});
  same_on_both([](auto& t) { return nabla::pad(t[0], {1, -1, 2, 0}, "constant", 2.5); }, {x});
  same_on_both([](auto& t) { return nabla::pad(t[0].unsqueeze(0), {2, 3, 1, 2}, "replicate"); }, {x});
  same_on_both([](auto& t) { return embedding(t[0], t[1]); }, {index, x});
  // A broadcast mask and input (0 strides): masked_select expands both.
  same_on_both([](auto& t) { return masked_select(t[0], t[1]); },
               {x.slice(1, 0, 1), shaped_ints({1, 0, 1, 1}, {4}).to(kBool)});
  same_on_both([](auto& t) { return one_hot(t[0], 6); }, {index});
}

TEST(OpenCLIndexing, RepeatedIndicesResolveAsOnTheCpu) {
  NABLA_SKIP_WITHOUT_OPENCL();
  manual_seed(3);
  const Tensor x = randn({5, 7}, kFloat64);
  const Tensor index = randint(0, 5, {300, 7}, kInt64);
  const Tensor src = randn({300, 7}, kFloat64);
  // The last write wins; sums add in the CPU's order: float64 bit for bit.
  same_on_both([](auto& t) { return scatter(t[0], 0, t[1], t[2]); }, {x, index, src});
  same_on_both([](auto& t) { return scatter_add(t[0], 0, t[1], t[2]); }, {x, index, src});
  same_on_both([](auto& t) { return index_add(t[0], 0, t[1], t[2]); }, {x, index.select(1, 0), src});
  const Tensor tokens = randint(0, 5, {40, 3}, kInt64);
  for (int64_t padding : {-1, 2}) {
    same_on_both(
        [padding](auto& t) {
          Tensor w = t[0].detach().requires_grad_(true);
          (embedding(t[1], w, padding) * t[2]).sum().backward();
          return w.grad();
        },
        {x, tokens, randn({40, 3, 7}, kFloat64)});
  }
  // pad's gradient: corners of a replicate pad gather many positions.
  same_on_both(
      [](auto& t) {
        Tensor v = t[0].detach().requires_grad_(true);
        (nabla::pad(v, {3, 4, 2, 5}, "replicate") * t[1]).sum().backward();
        return v.grad();
      },
      {randn({2, 3, 4}, kFloat64), randn({2, 10, 11}, kFloat64)});
  same_on_both(
      [](auto& t) {
        Tensor v = t[0].detach().requires_grad_(true);
        (nabla::pad(v, {3, 2}, "reflect") * t[1]).sum().backward();
        return v.grad();
      },
      {randn({2, 4}, kFloat64), randn({2, 9}, kFloat64)});
}

TEST(OpenCLIndexing, RanksPastTheKernelsLimitAreAnError) {
  NABLA_SKIP_WITHOUT_OPENCL();
  // 9 dims of size 2 that no merging can join (every other one transposed).
  Tensor x = zeros(Shape(9, 2), TensorOptions(kFloat32).device(kCl));
  x = x.permute({1, 0, 3, 2, 5, 4, 7, 6, 8});
  try {
    flip(x, {0});
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("flip: accelerator kernels take up to 8 dims"), std::string::npos) << e.what();
  }
  // Mergeable dims run at any rank.
  const Tensor y = arange(512, kFloat32).reshape(Shape(9, 2));
  same_on_both([](auto& t) { return flip(t[0], {8}); }, {y});
}

TEST(OpenCLFactories, RangesEqualTheCpusBitForBit) {
  NABLA_SKIP_WITHOUT_OPENCL();
  for (DType t : {kFloat32, kFloat64, kInt64, kInt32, kUInt8, kBool}) {
    SCOPED_TRACE(std::string(dtype_name(t)));
    auto both = [&](const std::function<Tensor(TensorOptions)>& make) {
      const Tensor on_cpu = make(TensorOptions(t)), on_cl = make(TensorOptions(t).device(kCl));
      EXPECT_EQ(on_cl.device(), kCl);
      EXPECT_TRUE(equal(on_cl.cpu(), on_cpu)) << on_cl.cpu() << "\n" << on_cpu;
    };
    both([](TensorOptions o) { return arange(0, 250, 1, o); });
    both([](TensorOptions o) { return arange(0.1, 9.7, 0.1, o); });
    both([](TensorOptions o) { return arange(0.3, 255.0, 1.7, o); });
    both([](TensorOptions o) { return linspace(0.0, 1.0, 1001, o); });
    both([](TensorOptions o) { return linspace(2.0, 3.0, 1, o); });
    both([](TensorOptions o) { return eye(5, 7, o); });
    both([](TensorOptions o) { return eye(6, 3, o); });
    both([](TensorOptions o) { return linspace(0.0, 255.0, 77, o); });
    if (t == kUInt8) continue;  // a negative double to uint8_t is undefined in C++
    // Exact values on integers (29 at i = 19; 0 at the middle): rounded as the CPU rounds.
    both([](TensorOptions o) { return arange(-3.3, 1.0e3, 1.7, o); });
    both([](TensorOptions o) { return linspace(-1.0, 1.0, 1001, o); });
  }
  // float16 has no OpenCL C type: a clear error naming the factory.
  try {
    arange(5, TensorOptions(kFloat16).device(kCl));
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("arange"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nabla::testing

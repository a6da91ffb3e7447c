// Convolution, pooling and resampling on the OpenCL device at the edges the
// op-table suite (op_table_opencl_test.cpp) does not reach: batches larger
// than one im2col column block, max-pool ties, NaN and all -inf windows, a
// small CNN's training step, and the errors of unsupported dtypes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"
#include "opencl/opencl_test_util.h"
#include "support/devices.h"

namespace nabla::testing {
namespace {

// Leaves of the same values on the CPU and on the device.
struct Pair {
  Tensor cpu, cl;
};
Pair leaf_pair(const Tensor& values) {
  return {values.detach().clone().requires_grad_(), values.detach().to(kCl).requires_grad_()};
}

// 20 samples of 16 x 64 x 64 under a 3x3 window need about 11.8M column
// entries, above the 8M-entry column budget: the kernels run two blocks
// (14 samples, then 6), so the block offsets, the bias rows of the second
// block and the weight gradient's accumulation across blocks all run.
TEST(OpenCLConv, ABatchOverSeveralColumnBlocksMatchesTheCpu) {
  NABLA_SKIP_WITHOUT_OPENCL();
  manual_seed(3);
  Pair x = leaf_pair(randn({20, 16, 64, 64}, kFloat64)), w = leaf_pair(randn({8, 8, 3, 3}, kFloat64)),
       b = leaf_pair(randn({8}, kFloat64));
  const Tensor gy = randn({20, 8, 64, 64}, kFloat64);
  Tensor y_cpu = conv2d(x.cpu, w.cpu, b.cpu, {1, 1}, {1, 1}, {1, 1}, 2);
  Tensor y_cl = conv2d(x.cl, w.cl, b.cl, {1, 1}, {1, 1}, {1, 1}, 2);
  assert_close(y_cl.cpu(), y_cpu, {.rtol = 1e-10, .atol = 1e-10});
  y_cpu.backward(gy);
  y_cl.backward(gy.to(kCl));
  assert_close(x.cl.grad().cpu(), x.cpu.grad(), {.rtol = 1e-10, .atol = 1e-10, .msg = "input grad"});
  assert_close(w.cl.grad().cpu(), w.cpu.grad(), {.rtol = 1e-10, .atol = 1e-10, .msg = "weight grad"});
  assert_close(b.cl.grad().cpu(), b.cpu.grad(), {.rtol = 1e-10, .atol = 1e-10, .msg = "bias grad"});
}

TEST(OpenCLConv, TransposedOverSeveralColumnBlocksMatchesTheCpu) {
  NABLA_SKIP_WITHOUT_OPENCL();
  manual_seed(4);
  // The column matrix is [C * K, P] per sample with C * K = 16 * 9 and P = 64 * 64.
  const Tensor x = randn({20, 8, 64, 64}), w = randn({8, 16, 3, 3}), b = randn({16});
  const Tensor y_cpu = conv_transpose2d(x, w, b, {1, 1}, {1, 1});
  const Tensor y_cl = conv_transpose2d(x.to(kCl), w.to(kCl), b.to(kCl), {1, 1}, {1, 1});
  assert_close(y_cl.cpu(), y_cpu, {.rtol = 1e-4, .atol = 1e-4});
}

// A strided (channels-last) input is unfolded in place, without a copy.
TEST(OpenCLConv, ChannelsLastInputMatchesTheCpu) {
  NABLA_SKIP_WITHOUT_OPENCL();
  manual_seed(5);
  const Tensor x = randn({3, 9, 11, 4}, kFloat64), w = randn({6, 4, 3, 2}, kFloat64);
  assert_close(conv2d_nhwc(x.to(kCl), w.to(kCl), Tensor(), {1, 2}, {2, 0}, {2, 1}).cpu(),
               conv2d_nhwc(x, w, Tensor(), {1, 2}, {2, 0}, {2, 1}), {.rtol = 1e-10, .atol = 1e-10});
}

// Empty sums (no input channels, an empty window, no channels to transpose)
// and empty batches give the bias or zeros, as on the CPU; CLBlast refuses a
// GEMM with k = 0.
TEST(OpenCLConv, EmptySumsGiveTheBiasOrZeros) {
  NABLA_SKIP_WITHOUT_OPENCL();
  auto same = [](auto fn) { assert_close(fn(kCl).cpu(), fn(kCPU), {.rtol = 0.0, .atol = 0.0}); };
  same([](Device d) { return conv2d(zeros({2, 0, 5, 5}, d), zeros({3, 0, 3, 3}, d), full({3}, 1.5, d)); });
  same([](Device d) { return conv2d(zeros({2, 0, 5, 5}, d), zeros({3, 0, 3, 3}, d)); });
  same([](Device d) { return conv2d(ones({2, 2, 5, 5}, d), ones({3, 2, 0, 3}, d)); });
  same([](Device d) { return conv_transpose2d(zeros({2, 0, 5, 5}, d), zeros({0, 3, 3, 3}, d), full({3}, 2.0, d)); });
  same([](Device d) { return conv2d_weight_grad(ones({0, 2, 5, 5}, d), ones({0, 3, 3, 3}, d), {3, 2, 3, 3}); });
  same([](Device d) { return ones({4, 0}, d).mm(ones({0, 5}, d)); });
}

// The message names the op, the dtype given and the dtypes the kernels take.
template <class Fn>
void expect_dtype_error(Fn&& fn, const std::string& op, const std::string& given) {
  try {
    fn();
    ADD_FAILURE() << op << ": expected an Error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    for (const std::string& part : {op + ":", given, std::string("float32 or float64")})
      EXPECT_NE(msg.find(part), std::string::npos) << "'" << part << "' not in: " << msg;
  }
}

// float16 and bfloat16 (which the CPU computes in float32) have no OpenCL
// kernels: an Error, not a wrong answer.
TEST(OpenCLConv, HalfPrecisionIsAnErrorNamingTheOp) {
  NABLA_SKIP_WITHOUT_OPENCL();
  for (DType t : {kFloat16, kBFloat16}) {
    const Tensor x = randn({1, 2, 5, 5}).to(t).to(kCl), w = randn({3, 2, 3, 3}).to(t).to(kCl);
    const std::string given = std::string(dtype_name(t));
    expect_dtype_error([&] { conv2d(x, w); }, "conv2d", given);
    expect_dtype_error([&] { max_pool2d(x, {2, 2}); }, "max_pool2d", given);
    expect_dtype_error([&] { adaptive_avg_pool2d(x, {2, 2}); }, "adaptive_avg_pool2d", given);
    expect_dtype_error([&] { interpolate(x, {.size = {7, 7}}); }, "interpolate", given);
  }
}

// Values and argmax indices equal the CPU's exactly (indices as int64).
void same_max_pool(const Tensor& x, IntList k, IntList s, IntList p, IntList d, bool ceil_mode) {
  const auto [v_cpu, i_cpu] = max_pool2d_with_indices(x, k, s, p, d, ceil_mode);
  const auto [v_cl, i_cl] = max_pool2d_with_indices(x.to(kCl), k, s, p, d, ceil_mode);
  assert_close(v_cl.cpu(), v_cpu, {.rtol = 0.0, .atol = 0.0, .equal_nan = true});
  EXPECT_TRUE(equal(i_cl.cpu(), i_cpu)) << "indices differ: " << i_cl.cpu() << " vs " << i_cpu;
}

TEST(OpenCLMaxPool, TiesNaNAndInfinitiesPickTheCpusIndices) {
  NABLA_SKIP_WITHOUT_OPENCL();
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  // Ties: the first maximum of each window.
  same_max_pool(ones({2, 3, 6, 7}, kFloat64), {3, 3}, {2, 2}, {1, 1}, {1, 1}, true);
  // All -inf, with padding: a real element (not the padding) wins.
  same_max_pool(full({1, 2, 5, 5}, -inf, kFloat32), {2, 2}, {2, 2}, {1, 1}, {1, 1}, false);
  // NaN propagates and the last NaN of a window takes the gradient.
  Tensor x = randn({1, 1, 6, 6}, kFloat64);
  double* px = x.data_ptr<double>();
  px[1 * 6 + 1] = nan;
  px[2 * 6 + 2] = nan;
  px[4 * 6 + 5] = inf;
  same_max_pool(x, {3, 3}, {1, 1}, {0, 0}, {1, 1}, false);
  same_max_pool(x, {2, 2}, {2, 1}, {1, 1}, {2, 2}, true);
}

// conv2d -> relu -> max_pool2d -> flatten -> linear, a squared-error loss:
// the gradients of every parameter on the device equal the CPU's.
TEST(OpenCLConv, ASmallCnnStepHasTheCpusGradients) {
  NABLA_SKIP_WITHOUT_OPENCL();
  manual_seed(6);
  const Tensor input = randn({8, 1, 12, 12}), target = randn({8, 5});
  Pair w1 = leaf_pair(randn({4, 1, 3, 3}) * 0.3), b1 = leaf_pair(randn({4}) * 0.1),
       w2 = leaf_pair(randn({6, 4, 3, 3}) * 0.2), b2 = leaf_pair(randn({6}) * 0.1),
       w3 = leaf_pair(randn({5, 6 * 3 * 3}) * 0.1);
  auto loss = [&](Device d, const Tensor& c1, const Tensor& cb1, const Tensor& c2, const Tensor& cb2, const Tensor& l) {
    Tensor h = max_pool2d(relu(conv2d(input.to(d), c1, cb1, {1, 1}, {1, 1})), {2, 2});
    h = avg_pool2d(relu(conv2d(h, c2, cb2, {1, 1}, {1, 1})), {2, 2});
    return (linear(flatten(h, 1), l) - target.to(d)).pow(2).sum();
  };
  Tensor l_cpu = loss(kCPU, w1.cpu, b1.cpu, w2.cpu, b2.cpu, w3.cpu);
  Tensor l_cl = loss(kCl, w1.cl, b1.cl, w2.cl, b2.cl, w3.cl);
  assert_close(l_cl.cpu(), l_cpu, {.rtol = 1e-5, .atol = 1e-5});
  l_cpu.backward();
  l_cl.backward();
  for (const Pair* p : {&w1, &b1, &w2, &b2, &w3})
    assert_close(p->cl.grad().cpu(), p->cpu.grad(), {.rtol = 1e-4, .atol = 1e-5});
}

TEST(OpenCLResample, LargeScalesMatchTheCpu) {
  NABLA_SKIP_WITHOUT_OPENCL();
  manual_seed(7);
  Pair x = leaf_pair(randn({2, 3, 5, 7}, kFloat64));
  for (const char* mode : {"nearest", "bilinear"}) {
    InterpolateOptions o{.scale_factor = {3.7, 2.3}, .mode = mode};
    Tensor y_cpu = interpolate(x.cpu, o), y_cl = interpolate(x.cl, o);
    assert_close(y_cl.cpu(), y_cpu, {.rtol = 1e-10, .atol = 1e-10, .msg = mode});
    const Tensor gy = randn(y_cpu.sizes(), kFloat64);
    Tensor g_cpu = nabla::grad({y_cpu}, {x.cpu}, {gy})[0];
    Tensor g_cl = nabla::grad({y_cl}, {x.cl}, {gy.to(kCl)})[0];
    assert_close(g_cl.cpu(), g_cpu, {.rtol = 1e-10, .atol = 1e-10, .msg = mode});
  }
}

}  // namespace
}  // namespace nabla::testing

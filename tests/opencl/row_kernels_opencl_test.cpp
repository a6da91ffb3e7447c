// The row-wise OpenCL kernels (kernels/device/{softmax,loss,draws,row_reduce,
// sort}.h) at the edges the op table does not reach: each result against the
// CPU's for the same input (bit for bit where the CPU's order of operations is
// kept), NaN rows, ties, ignored targets, the errors the data decide, and
// random masks and permutations equal to the CPU's for the same seed.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"
#include "opencl/opencl_test_util.h"
#include "support/devices.h"
#include "support/error_message.h"
#include "support/special_values.h"

namespace nabla::testing {
namespace {

// `f` on the CPU and on the device agree (NaN where NaN), to float64 rounding.
template <class F>
void same_as_cpu(const Tensor& x, F f, double tol = 1e-12) {
  Tensor on_cpu = f(x), on_cl = f(x.to(kCl));
  EXPECT_EQ(on_cl.device(), kCl);
  assert_close(on_cl.cpu(), on_cpu, {.rtol = tol, .atol = tol, .equal_nan = true});
}

TEST(OpenCLRowKernels, SoftmaxOfRowsWithNanInfAndHugeValues) {
  NABLA_SKIP_WITHOUT_OPENCL();
  Tensor x = tensor({{1.0, kNaN, 3.0},
                     {-kInf, 0.0, 1.0},
                     {1000.0, 1001.0, -1000.0},
                     {-kInf, -kInf, -kInf},
                     {kNaN, 0.0, 1.0},
                     {2.0, kInf, 0.0}},
                    TensorOptions(kFloat64));
  for (int64_t dim : {0, 1}) {
    same_as_cpu(x, [&](const Tensor& t) { return softmax(t, dim); });
    same_as_cpu(x, [&](const Tensor& t) { return log_softmax(t, dim); });
  }
  Tensor y = softmax(x.to(kCl), 1).cpu();
  EXPECT_TRUE(std::isnan(y.index({0, 0}).item<double>()));  // a NaN reaches its whole row
  EXPECT_NEAR(y.index({2, 1}).item<double>(), 1.0 / (1.0 + std::exp(-1.0)), 1e-15);
  // A strided view (the kernel reads a dense copy) and float32.
  Tensor big = randn({4, 5, 6}).transpose(0, 2);
  same_as_cpu(
      big, [](const Tensor& t) { return softmax(t, 1); }, 1e-6);
  same_as_cpu(
      big, [](const Tensor& t) { return log_softmax(t, 2); }, 1e-6);
}

TEST(OpenCLRowKernels, ClassLossesIgnoreTargetsAndWeighClasses) {
  NABLA_SKIP_WITHOUT_OPENCL();
  manual_seed(3);
  Tensor x = randn({6, 4, 3}, TensorOptions(kFloat64));
  Tensor t = tensor(std::vector<int64_t>{0, 3, -100, 1, 2, 0, 1, 1, -100, 3, 3, 2, 0, 0, 1, 2, 2, 3}, {6, 3});
  Tensor w = tensor({0.5, 2.0, 1.0, 0.25}, TensorOptions(kFloat64));
  for (const char* red : {"mean", "sum", "none"}) {
    same_as_cpu(
        x, [&](const Tensor& in) { return cross_entropy(in, t.to(in.device()), w.to(in.device()), -100, red, 0.1); });
    same_as_cpu(x, [&](const Tensor& in) { return nll_loss(in, t.to(in.device()), w.to(in.device()), -100, red); });
    same_as_cpu(x, [&](const Tensor& in) { return nll_loss(in, t.clamp(0, 3).to(in.device()), Tensor(), 1, red); });
  }
  // NaN and infinite logits, the NaN first or not.
  Tensor odd =
      tensor({{kNaN, 1.0, 2.0}, {1.0, kNaN, 0.0}, {kInf, 0.0, 1.0}, {-kInf, 0.0, 1.0}}, TensorOptions(kFloat64));
  Tensor classes = tensor(std::vector<int64_t>{1, 0, 2, 1}, {4});
  same_as_cpu(odd,
              [&](const Tensor& in) { return cross_entropy(in, classes.to(in.device()), Tensor(), -100, "none"); });
  same_as_cpu(
      odd, [&](const Tensor& in) { return cross_entropy(in, classes.to(in.device()), Tensor(), -100, "none", 0.2); });
  // Every target ignored: "mean" is 0/0 = NaN, as in PyTorch.
  Tensor ignored = full({6, 3}, -100, TensorOptions(kInt64));
  EXPECT_TRUE(std::isnan(cross_entropy(x.to(kCl), ignored.to(kCl)).item<double>()));
  EXPECT_EQ(cross_entropy(x.to(kCl), ignored.to(kCl), Tensor(), -100, "sum").item<double>(), 0.0);
}

TEST(OpenCLRowKernels, OutOfRangeTargetsAndProbabilitiesAreErrorsNamingTheFirst) {
  NABLA_SKIP_WITHOUT_OPENCL();
  Tensor x = zeros({3, 4}, TensorOptions(kFloat32).device(kCl));
  Tensor t = tensor(std::vector<int64_t>{1, 4, -1}, {3}).to(kCl);
  expect_error(error_of([&] { cross_entropy(x, t); }), {"cross_entropy", "target 4 at position 1", "[0, 3]"});
  expect_error(error_of([&] { nll_loss(x, t); }), {"nll_loss", "target 4 at position 1"});
  Tensor p = tensor({0.5, 1.5, -0.1}).to(kCl);
  expect_error(error_of([&] { binary_cross_entropy(p, zeros_like(p)); }),
               {"binary_cross_entropy", "got 1.5 at position 1", "[0, 1]"});
  expect_error(error_of([&] { bernoulli(tensor({0.2, kNaN}).to(kCl)); }), {"bernoulli", "at flat index 1"});
}

TEST(OpenCLRowKernels, BinaryCrossEntropyClampsLogsAndBroadcastsWeight) {
  NABLA_SKIP_WITHOUT_OPENCL();
  Tensor p = tensor({{0.0, 1.0, 0.25}, {0.5, 1e-30, 0.999}}, TensorOptions(kFloat64));
  Tensor t = tensor({{1.0, 0.0, 0.5}, {0.0, 1.0, 1.0}}, TensorOptions(kFloat64));
  Tensor w = tensor({1.0, 2.0, 3.0}, TensorOptions(kFloat64));
  for (const char* red : {"mean", "sum", "none"})
    same_as_cpu(p,
                [&](const Tensor& in) { return binary_cross_entropy(in, t.to(in.device()), w.to(in.device()), red); });
  EXPECT_EQ(binary_cross_entropy(p.to(kCl), t.to(kCl), Tensor(), "none").cpu().index({0, 0}).item<double>(), 100.0);
}

TEST(OpenCLRowKernels, DropoutMasksEqualTheCpusForTheSameSeed) {
  NABLA_SKIP_WITHOUT_OPENCL();
  for (DType dt : {kFloat32, kFloat64}) {
    Tensor x = randn({37, 11}, TensorOptions(dt));
    x.index({0, 0}).fill_(kNaN);
    for (double p : {0.0, 0.3, 1.0}) {
      manual_seed(11);
      Tensor on_cpu = dropout(x, p);
      manual_seed(11);
      Tensor on_cl = dropout(x.to(kCl), p);
      assert_close(on_cl.cpu(), on_cpu, {.rtol = 0.0, .atol = 0.0, .equal_nan = true});
      if (p == 1.0) EXPECT_EQ(sum(on_cl == 0.0).item<int64_t>(), x.numel() - 1);  // the NaN stays NaN
    }
    // The stream continues: the next draw on the CPU equals the CPU's.
    manual_seed(5);
    dropout(x, 0.5);
    Tensor next_cpu = rand({8});
    manual_seed(5);
    dropout(x.to(kCl), 0.5);
    EXPECT_TRUE(equal(rand({8}), next_cpu));
  }
}

TEST(OpenCLRowKernels, BernoulliAndRandpermEqualTheCpusForTheSameSeed) {
  NABLA_SKIP_WITHOUT_OPENCL();
  Tensor p = rand({300});
  manual_seed(8);
  Tensor b_cpu = bernoulli(p);
  manual_seed(8);
  EXPECT_TRUE(equal(bernoulli(p.to(kCl)).cpu(), b_cpu));
  for (int64_t n : {1, 2, 7, 1000, 4097}) {
    for (DType dt : {kInt64, kInt32, kFloat32}) {
      manual_seed(static_cast<uint64_t>(n));
      Tensor on_cpu = randperm(n, TensorOptions(dt));
      manual_seed(static_cast<uint64_t>(n));
      Tensor on_cl = randperm(n, TensorOptions(dt).device(kCl));
      EXPECT_TRUE(equal(on_cl.cpu(), on_cpu)) << "n = " << n << ", " << dt;
    }
  }
}

TEST(OpenCLRowKernels, MaxAndMinPickTheFirstExtremumAndTheFirstNan) {
  NABLA_SKIP_WITHOUT_OPENCL();
  Tensor x = tensor({{1.0, 3.0, 3.0, 0.0}, {2.0, kNaN, 5.0, kNaN}, {kNaN, 1.0, 1.0, 1.0}, {-1.0, -1.0, 4.0, -1.0}},
                    TensorOptions(kFloat64));
  for (int64_t dim : {0, 1}) {
    auto [v, i] = max(x.to(kCl), dim);
    auto [v_cpu, i_cpu] = max(x, dim);
    assert_close(v.cpu(), v_cpu, {.equal_nan = true});
    EXPECT_TRUE(equal(i.cpu(), i_cpu));
    auto [mv, mi] = min(x.to(kCl), dim, true);
    auto [mv_cpu, mi_cpu] = min(x, dim, true);
    assert_close(mv.cpu(), mv_cpu, {.equal_nan = true});
    EXPECT_TRUE(equal(mi.cpu(), mi_cpu));
  }
  EXPECT_EQ(max(x.to(kCl), 1).second.cpu().index({1}).item<int64_t>(), 1);  // the first NaN
  EXPECT_EQ(min(x.to(kCl), 1).second.cpu().index({3}).item<int64_t>(), 0);  // the first of the ties
  Tensor ints = tensor(std::vector<int32_t>{4, 9, 9, -2, 7, -2}, {2, 3});
  EXPECT_TRUE(equal(max(ints.to(kCl), 1).second.cpu(), max(ints, 1).second));
  EXPECT_TRUE(equal(min(ints.to(kCl), 0).first.cpu(), min(ints, 0).first));
}

TEST(OpenCLRowKernels, ScansOfIntegersBoolsAndZeros) {
  NABLA_SKIP_WITHOUT_OPENCL();
  Tensor ints = tensor(std::vector<int32_t>{1, -2, 3, 4, 5, 6}, {2, 3});
  Tensor s = cumsum(ints.to(kCl), 1);
  EXPECT_EQ(s.dtype(), kInt64);
  EXPECT_TRUE(equal(s.cpu(), cumsum(ints, 1)));
  Tensor flags = tensor(std::vector<bool>{true, false, true, true}, {4});
  EXPECT_TRUE(equal(cumsum(flags.to(kCl), 0).cpu(), cumsum(flags, 0)));
  Tensor x = tensor({{2.0, 0.0, 3.0}, {kNaN, 1.0, 2.0}, {0.5, 4.0, kInf}}, TensorOptions(kFloat64));
  for (int64_t dim : {0, 1}) {
    same_as_cpu(
        x, [&](const Tensor& t) { return cumprod(t, dim); }, 0.0);
    same_as_cpu(
        x, [&](const Tensor& t) { return cumsum(t, dim); }, 0.0);
  }
}

TEST(OpenCLRowKernels, VarOverSeveralDimsWithEveryCorrection) {
  NABLA_SKIP_WITHOUT_OPENCL();
  manual_seed(2);
  Tensor x = randn({3, 4, 5}, TensorOptions(kFloat64)).permute({2, 0, 1});
  for (int64_t c : {0, 1, 2})
    for (IntList dims : {IntList{0}, IntList{0, 2}, IntList{}}) {
      same_as_cpu(x, [&](const Tensor& t) { return var(t, dims, Correction{c}, true); });
      same_as_cpu(x, [&](const Tensor& t) { return var(t, dims, Correction{c}, false); });
    }
  // n - correction <= 0 divides by 0, as on the CPU (inf or NaN).
  same_as_cpu(x, [](const Tensor& t) { return var(t, {1}, Correction{5}); });
  // float32 (batch norm's statistics).
  Tensor f = randn({8, 3, 5, 5});
  same_as_cpu(
      f,
      [](const Tensor& t) {
        return var(t, {0, 2, 3}, Correction{0});
      },
      1e-6);
}

TEST(OpenCLRowKernels, SortIsStableAndOrdersNanLikeTheCpu) {
  NABLA_SKIP_WITHOUT_OPENCL();
  Tensor x = tensor({3.0, kNaN, 1.0, 3.0, -kInf, 1.0, kNaN, 0.0, 3.0}, TensorOptions(kFloat64));
  for (bool descending : {false, true}) {
    auto [v, i] = sort(x.to(kCl), 0, descending);
    auto [v_cpu, i_cpu] = sort(x, 0, descending);
    assert_close(v.cpu(), v_cpu, {.equal_nan = true});
    EXPECT_TRUE(equal(i.cpu(), i_cpu)) << "descending = " << descending;
  }
  // Long rows of many ties (not a power of two), along a middle dim, integers.
  Tensor ints = randint(0, 5, {3, 1000, 2}, TensorOptions(kInt64));
  for (bool descending : {false, true}) {
    auto [v, i] = sort(ints.to(kCl), 1, descending);
    auto [v_cpu, i_cpu] = sort(ints, 1, descending);
    EXPECT_TRUE(equal(v.cpu(), v_cpu));
    EXPECT_TRUE(equal(i.cpu(), i_cpu));
  }
  Tensor flags = tensor(std::vector<bool>{true, false, true, false}, {4});
  EXPECT_TRUE(equal(sort(flags.to(kCl)).second.cpu(), sort(flags).second));
}

TEST(OpenCLRowKernels, TopkChoosesLikeTheCpuSortedOrInInputOrder) {
  NABLA_SKIP_WITHOUT_OPENCL();
  Tensor x = randint(0, 7, {5, 33}, TensorOptions(kFloat32));
  x.index({2, 4}).fill_(kNaN);
  for (bool largest : {true, false})
    for (bool sorted : {true, false})
      for (int64_t k : {0, 1, 5, 33}) {
        auto [v, i] = topk(x.to(kCl), k, 1, largest, sorted);
        auto [v_cpu, i_cpu] = topk(x, k, 1, largest, sorted);
        assert_close(v.cpu(), v_cpu, {.equal_nan = true});
        EXPECT_TRUE(equal(i.cpu(), i_cpu)) << "k = " << k << ", largest = " << largest << ", sorted = " << sorted;
      }
}

TEST(OpenCLRowKernels, ReducedFloatsAreAnErrorNamingTheOpAndTheDtypesTaken) {
  NABLA_SKIP_WITHOUT_OPENCL();
  Tensor h = randn({4, 5}).to(kFloat16).to(kCl);
  const Tensor classes = tensor(std::vector<int64_t>{0, 1, 2, 3}, {4}).to(kCl);
  expect_error(error_of([&] { softmax(h, 1); }), {"softmax", "float16", "float32 and float64"});
  expect_error(error_of([&] { cross_entropy(h, classes); }), {"cross_entropy", "float16"});
  expect_error(error_of([&] { dropout(h, 0.5); }), {"dropout", "float16"});
  expect_error(error_of([&] { var(h, {1}); }), {"var", "float16"});
  expect_error(error_of([&] { sort(h, 1); }), {"sort", "float16"});
  expect_error(error_of([&] { cumsum(h, 1); }), {"cumsum", "float16"});
}

}  // namespace
}  // namespace nabla::testing

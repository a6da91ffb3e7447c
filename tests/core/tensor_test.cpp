// Tensor core: views share storage, factories, dtypes, printing, allocator.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "nabla/nabla.h"

namespace nabla {
namespace {

TEST(Tensor, ViewsShareStorageWithoutCopy) {
  Tensor x = arange(24, dtype(kFloat32)).view({2, 3, 4});
  Tensor t = x.transpose(0, 2);
  EXPECT_EQ(t.sizes(), (Shape{4, 3, 2}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.impl()->storage.get(), x.impl()->storage.get());
  Tensor s = x.slice(2, 1, 4, 2);  // columns 1 and 3
  EXPECT_EQ(s.sizes(), (Shape{2, 3, 2}));
  EXPECT_EQ(s.at<float>({1, 2, 1}), 23.0f);
  {
    NoGradGuard g;
    s.fill_(-1);
  }
  EXPECT_EQ(x.at<float>({0, 0, 1}), -1.0f);  // written through the view
  EXPECT_EQ(x.at<float>({0, 0, 0}), 0.0f);
  EXPECT_EQ(x.select(1, 2).sizes(), (Shape{2, 4}));
  EXPECT_EQ(x.narrow(1, 1, 2).sizes(), (Shape{2, 2, 4}));
  EXPECT_EQ(x.unsqueeze(0).squeeze(0).sizes(), x.sizes());
  EXPECT_EQ(x.flatten().sizes(), (Shape{24}));
  EXPECT_EQ(ones({3, 1}).expand({3, 5}).strides(), (Shape{1, 0}));
  EXPECT_EQ(arange(10).unfold(0, 4, 3).sizes(), (Shape{3, 4}));
  Tensor c = t.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(c.at<float>({3, 2, 1}), x.at<float>({1, 2, 3}));
}

TEST(Tensor, ContiguousCopiesOfTransposedMatricesKeepEveryElement) {
  // The blocked copy (kernels/cpu/cast.cpp) for sizes around and beyond its
  // 32x32 blocks, every dtype width, and a padded leading dimension.
  for (DType dt : {kFloat32, kFloat64, kInt64, kFloat16, kBool}) {
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{2, 3}, {33, 70}, {64, 31}}) {
      Tensor base = remainder(arange(cols * (rows + 5), dtype(kFloat64)), full({}, 7.0, kFloat64)).view({cols, rows + 5}).to(dt);
      Tensor t = base.narrow(1, 2, rows).t();  // [rows, cols], strides {1, rows + 5}
      Tensor c = t.contiguous();
      ASSERT_TRUE(c.is_contiguous());
      Tensor want = t.to(kFloat64), got = c.to(kFloat64);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t k = 0; k < cols; ++k)
          ASSERT_EQ(got.at<double>({r, k}), want.at<double>({r, k})) << dt << " " << rows << "x" << cols;
    }
  }
}

TEST(Tensor, FillsAndBroadcastScalarsReachEveryElementInAnyLayout) {
  // fill_ copies a 0-dim tensor (a broadcast scalar) into the destination:
  // the elementwise loops have a vectorized case for that (loops.h), taken
  // for a column-major destination (a transposed gradient) too; a strided
  // one (every other column) keeps the general loop. Sizes past the
  // parallel grain, every dtype width, NaN.
  NoGradGuard no_grad;
  for (DType dt : {kFloat32, kFloat64, kInt64, kBFloat16, kBool}) {
    Tensor base = zeros({300, 400}, dt);
    Tensor col_major = base.t();  // [400, 300], strides {1, 400}
    col_major.fill_(1);
    EXPECT_EQ(base.to(kFloat64).sum().item<double>(), 300.0 * 400.0) << dt;
    Tensor every_other = base.slice(1, 0, 400, 2);  // columns 0, 2, ...
    every_other.fill_(0);
    Tensor want = ones({300, 400}, kFloat64);
    want.slice(1, 0, 400, 2).fill_(0);
    EXPECT_EQ(std::memcmp(base.to(kFloat64).contiguous().raw_data(), want.raw_data(), 300 * 400 * sizeof(double)), 0)
        << dt;
  }
  Tensor nan = zeros({200, 300}).t();
  nan.fill_(std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(isnan(nan).sum().item<int64_t>(), 200 * 300);
  // A broadcast scalar as the input of a copy and of a unary op.
  Tensor expanded = full({1, 1}, 3.0).expand({256, 300});
  EXPECT_EQ(expanded.contiguous().sum().item<float>(), 3.0f * 256 * 300);
  Tensor e = exp(expanded);
  EXPECT_EQ(e.sizes(), (Shape{256, 300}));
  EXPECT_EQ(eq(e, full({}, std::exp(3.0f))).sum().item<int64_t>(), 256 * 300);
}

TEST(Tensor, ConvertingCastsOfTransposedMatricesMatchTheElementwiseCast) {
  // A transposed matrix cast to another dtype goes through the blocked copy
  // in tiles (kernels/cpu/cast.cpp: a Linear weight's transpose under bf16
  // autocast); it must give the bits the element-by-element cast of its
  // contiguous copy gives. Sizes around and beyond the 32 x 128 tiles, a
  // padded leading dimension, values that round, NaN and +-inf.
  manual_seed(3);
  const std::pair<DType, DType> casts[] = {{kFloat32, kBFloat16}, {kBFloat16, kFloat32}, {kFloat32, kFloat16},
                                           {kFloat64, kFloat32},  {kFloat32, kInt64},   {kInt64, kFloat32}};
  for (auto [from, to] : casts) {
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{2, 3}, {33, 70}, {64, 31}, {40, 300}}) {
      Tensor base = randn({cols, rows + 5}, kFloat64) * 1000.0;
      if (from != kInt64) {
        base = where(rand(base.sizes()) < 0.03, full_like(base, std::numeric_limits<double>::quiet_NaN()), base);
        base = where(rand(base.sizes()) < 0.03, full_like(base, -std::numeric_limits<double>::infinity()), base);
      }
      Tensor t = base.to(from).narrow(1, 2, rows).t();  // [rows, cols], strides {1, rows + 5}
      Tensor got = t.to(to), want = t.contiguous().to(to);
      ASSERT_TRUE(got.is_contiguous());
      EXPECT_EQ(std::memcmp(got.raw_data(), want.raw_data(), static_cast<std::size_t>(got.numel()) * itemsize(to)), 0)
          << from << " -> " << to << " " << rows << "x" << cols;
    }
  }
}

TEST(Tensor, BoolsCastToZeroAndOneInEveryFloatingLayout) {
  // Contiguous bools to float32/float64 take a loop of their own (kernels/cpu/
  // cast.cpp); small, odd and multi-chunk sizes, and a strided mask.
  for (int64_t n : {1, 7, 33, 6400, 100001}) {
    Tensor x = remainder(arange(n, dtype(kFloat64)), full({}, 3.0, kFloat64));
    Tensor mask = x > 0.5;  // 0, 1, 1, 0, 1, 1, ...
    for (DType dt : {kFloat32, kFloat64, kFloat16}) {
      Tensor f = mask.to(dt).to(kFloat64);
      for (int64_t i = 0; i < n; i += (n > 100 ? 997 : 1))
        ASSERT_EQ(f.at<double>({i}), i % 3 == 0 ? 0.0 : 1.0) << dt << " n=" << n << " i=" << i;
      ASSERT_EQ(f.sum().item<double>(), static_cast<double>(n - (n + 2) / 3)) << dt << " n=" << n;
    }
  }
  Tensor grid = arange(12, dtype(kFloat64)).view({3, 4}) > 5.5;  // rows 0, 1: false...; the rest true
  Tensor t = grid.t().to(kFloat32);                                // strided input
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t c = 0; c < 3; ++c) ASSERT_EQ(t.at<float>({r, c}), c * 4 + r > 5 ? 1.0f : 0.0f);
}

TEST(Tensor, IndexWithRangesStepsNoneAndEllipsis) {
  Tensor x = arange(60).view({3, 4, 5});
  Tensor r = x.index({Slice(1, std::nullopt), None, Ellipsis, Slice(std::nullopt, std::nullopt, 2)});
  EXPECT_EQ(r.sizes(), (Shape{2, 1, 4, 3}));
  EXPECT_EQ(r.at<int64_t>({1, 0, 3, 2}), 2 * 20 + 3 * 5 + 4);
  EXPECT_EQ(x.index({-1, 2, -1}).item<int64_t>(), 2 * 20 + 2 * 5 + 4);
}

TEST(Tensor, BroadcastingAndTypePromotion) {
  Tensor a = ones({3, 1}, dtype(kInt32));
  Tensor b = arange(4, dtype(kFloat32));
  Tensor c = a + b;
  EXPECT_EQ(c.sizes(), (Shape{3, 4}));
  EXPECT_EQ(c.dtype(), kFloat32);
  EXPECT_EQ((a * 2).dtype(), kInt32);        // int tensor * int scalar stays int
  EXPECT_EQ((a * 2.5).dtype(), kFloat32);    // * float scalar becomes float
  EXPECT_EQ((a / 2).dtype(), kFloat32);      // true division
  EXPECT_EQ((ones({2}, dtype(kFloat32)) + ones({}, dtype(kFloat64))).dtype(), kFloat32);  // 0-dim same category
  EXPECT_EQ((ones({2}, dtype(kInt64)) + ones({}, dtype(kFloat64))).dtype(), kFloat64);
  EXPECT_EQ((ones({2}, dtype(kFloat16)) + ones({2}, dtype(kBFloat16))).dtype(), kFloat32);
  EXPECT_EQ((ones({2}, dtype(kBool)) + ones({2}, dtype(kBool))).dtype(), kBool);
  EXPECT_EQ(exp(arange(3)).dtype(), kFloat32);  // integer input of a float op
}

TEST(Tensor, ReducedFloatStorageAndConversion) {
  Tensor x = tensor({1.0, -2.5, 0.1, 65504.0, 1e-8}, dtype(kFloat16));
  std::vector<float> v = x.to_vector<float>();
  EXPECT_EQ(v[0], 1.0f);
  EXPECT_EQ(v[1], -2.5f);
  EXPECT_NEAR(v[2], 0.1f, 1e-4);
  EXPECT_EQ(v[3], 65504.0f);
  EXPECT_NEAR(v[4], 0.0f, 1e-7);
  Tensor y = tensor({1.0, 3.140625, -1e30}, dtype(kBFloat16));
  EXPECT_EQ(y.to_vector<float>()[1], 3.140625f);
  EXPECT_NEAR(y.to_vector<float>()[2], -1e30f, 1e28f);
  Tensor z = (x * 2.0).to(kFloat32);  // math in float32, stored back as float16
  EXPECT_EQ(z.to_vector<float>()[1], -5.0f);
  EXPECT_EQ((x * 2.0).dtype(), kFloat16);
  EXPECT_TRUE(std::isinf(tensor({70000.0}, dtype(kFloat16)).item<float>()));
}

TEST(Tensor, CountingABoolMaskSumsInInt64) {
  Tensor mask = arange(100) > 3;  // 96 trues
  EXPECT_EQ(mask.sum().dtype(), kInt64);
  EXPECT_EQ(mask.sum().item<int64_t>(), 96);
  EXPECT_EQ(sum(mask.view({10, 10}), {0}).to_vector<int64_t>()[9], 10);
  EXPECT_EQ(cumsum(mask, 0).to_vector<int64_t>().back(), 96);
  EXPECT_EQ(ones({300}, dtype(kUInt8)).sum().item<int64_t>(), 300);
}

TEST(Tensor, FactoriesAndItem) {
  EXPECT_EQ(zeros({2, 3}).sum().item<float>(), 0.0f);
  EXPECT_EQ(ones({2, 3}, dtype(kFloat64)).sum().item<double>(), 6.0);
  EXPECT_EQ(full({2}, 7, dtype(kInt32)).to_vector<int>(), (std::vector<int>{7, 7}));
  EXPECT_EQ(arange(2, 11, 3).to_vector<int64_t>(), (std::vector<int64_t>{2, 5, 8}));
  EXPECT_EQ(arange(0.0, 1.0, 0.25).numel(), 4);
  EXPECT_EQ(linspace(0, 1, 5).to_vector<float>(), (std::vector<float>{0, 0.25f, 0.5f, 0.75f, 1}));
  EXPECT_EQ(eye(3).sum().item<float>(), 3.0f);
  EXPECT_EQ(eye(2, 3).sizes(), (Shape{2, 3}));
  Tensor like = zeros_like(ones({4}, dtype(kFloat64)));
  EXPECT_EQ(like.dtype(), kFloat64);
  EXPECT_EQ(tensor({{1.0, 2.0}, {3.0, 4.0}}).at<float>({1, 0}), 3.0f);
  std::vector<float> data{1, 2, 3, 4, 5, 6};
  Tensor copied = from_blob(data.data(), {2, 3}, kFloat32);
  Tensor borrowed = from_blob(data.data(), {2, 3}, kFloat32, /*borrow=*/true);
  data[0] = 100;
  EXPECT_EQ(copied.at<float>({0, 0}), 1.0f);
  EXPECT_EQ(borrowed.at<float>({0, 0}), 100.0f);
  EXPECT_EQ(tensor(std::vector<int64_t>{1, 2, 3}).dtype(), kInt64);
}

TEST(Tensor, RandomIsSeededAndIndependentOfThreads) {
  manual_seed(42);
  Tensor a = randn({100000});
  set_num_threads(1);
  manual_seed(42);
  Tensor b = randn({100000});
  set_num_threads(2);
  EXPECT_EQ(a.to_vector<float>(), b.to_vector<float>());
  double m = a.mean().item<float>(), s = nabla::std(a).item<float>();
  EXPECT_NEAR(m, 0.0, 0.02);
  EXPECT_NEAR(s, 1.0, 0.02);
  Tensor u = rand({100000});
  EXPECT_GE(u.min().item<float>(), 0.0f);
  EXPECT_LT(u.max().item<float>(), 1.0f);
  EXPECT_NEAR(u.mean().item<float>(), 0.5, 0.01);
  Tensor r = randint(3, 7, {1000});
  EXPECT_EQ(r.min().item<int64_t>(), 3);
  EXPECT_EQ(r.max().item<int64_t>(), 6);
  EXPECT_NEAR(bernoulli({100000}, 0.3).mean().item<float>(), 0.3, 0.01);
  EXPECT_NEAR(normal(5.0, 2.0, {100000}).mean().item<float>(), 5.0, 0.05);
  Tensor p = randperm(50);
  EXPECT_EQ(p.sum().item<int64_t>(), 49 * 50 / 2);
  manual_seed(1);
  Tensor c1 = rand({3});
  Tensor c2 = rand({3});
  EXPECT_NE(c1.to_vector<float>(), c2.to_vector<float>());  // the generator advances
}

TEST(Tensor, PrintsLikePyTorch) {
  EXPECT_EQ(tensor({1.0, 2.0, 3.0}).str(), "tensor([1., 2., 3.])");
  EXPECT_EQ(arange(3).str(), "tensor([0, 1, 2])");
  EXPECT_EQ(tensor({0.5, 1.25}, dtype(kFloat64)).str(), "tensor([0.5000, 1.2500], dtype=float64)");
  EXPECT_EQ(ones({2}, requires_grad()).str(), "tensor([1., 1.], requires_grad=True)");
  EXPECT_EQ((ones({2}, requires_grad()) * 2.0).str(), "tensor([2., 2.], grad_fn=<mul>)");
  EXPECT_EQ((arange(3) > 0).str(), "tensor([False,  True,  True])");
  std::string big = zeros({100, 100}).str();
  EXPECT_NE(big.find("..."), std::string::npos);
  EXPECT_NE(big.find("size=[100, 100]"), std::string::npos);
  EXPECT_LT(big.size(), 400u);
}

TEST(Tensor, CachingAllocatorReusesMemoryInSteadyState) {
  auto step = [] {
    Tensor a = randn({256, 256});
    Tensor b = (a * 2.0 + 1.0).sum();
    return b.item<float>();
  };
  step();
  step();
  uint64_t before = cpu_allocator_stats().system_allocations;
  for (int i = 0; i < 10; ++i) step();
  EXPECT_EQ(cpu_allocator_stats().system_allocations, before);
}

TEST(Tensor, ThreadCountCanBeSet) {
  set_num_threads(1);
  EXPECT_EQ(get_num_threads(), 1);
  Tensor x = ones({1 << 20});
  EXPECT_EQ((x + x).sum().item<float>(), 2.0f * (1 << 20));
  set_num_threads(2);
  EXPECT_EQ(get_num_threads(), 2);
  EXPECT_EQ((x + x).sum().item<float>(), 2.0f * (1 << 20));
}

TEST(Tensor, InPlaceOpsWriteThroughAndBumpVersion) {
  Tensor x = zeros({3});
  uint32_t v = x.version();
  x += 2.0;
  x *= tensor({1.0, 2.0, 3.0});
  x.sub_(1);
  x.clamp_(2.0, 4.0);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{2, 3, 4}));
  EXPECT_GT(x.version(), v);
  x.zero_();
  EXPECT_EQ(x.sum().item<float>(), 0.0f);
}

}  // namespace
}  // namespace nabla

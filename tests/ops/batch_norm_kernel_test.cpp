// The CPU kernels of batch norm's table ops (kernels/cpu/batch_norm.cpp)
// against the generic kernels made of ops that the other devices run (called
// directly on CPU tensors), in every layout the kernels walk (NCHW,
// channels-last, [N, C], [N, C, L], strided copies), float32 and float64,
// with and without weight and bias; their accuracy far from 0 against float64;
// NaN and inf as PyTorch gives them; and results that do not depend on the
// number of threads. The gradcheck and gradgradcheck of batch_norm (which runs
// these kernels and the rules of native_batch_norm and its backward) are the
// OpInfo entries of norm_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "nabla/ops/kernel_registry.h"
#include "support/op_info.h"

namespace nabla::testing {
namespace {

std::string str(const Shape& s) { return detail::concat(s); }
std::string dt(DType t) { return std::string(dtype_name(t)); }

// x with `value` at flat (row-major) position i.
Tensor with_value(const Tensor& x, int64_t i, double value) {
  std::vector<double> v = values(x);
  v[static_cast<std::size_t>(i)] = value;
  return from_values(v, x.sizes(), x.dtype());
}

const OpDef& op(const char* name) {
  const OpDef* o = find_op(name);
  EXPECT_NE(o, nullptr) << name;
  return *o;
}

// The op on the CPU (its kernel), and its generic kernel, on the same inputs.
TensorList kernel_of(const char* name, const TensorList& in, const Attrs& a) {
  return call(op(name), Inputs(in.data(), in.size()), a);
}
TensorList composite_of(const char* name, const TensorList& in, const Attrs& a) {
  const OpDef& o = op(name);
  const KernelFn generic = find_kernel(o, DeviceType::Opaque);  // the opaque device has no kernel of its own
  EXPECT_FALSE(has_device_kernel(o, DeviceType::Opaque));
  const Inputs ins(in.data(), in.size());
  TensorList out;
  for (const OutputMeta& m : o.infer(o, ins, a)) out.push_back(empty(m.sizes, dtype(m.dtype)));
  generic(ins, a, std::span<Tensor>(out.data(), out.size()));
  return out;
}

void expect_close(const TensorList& got, const TensorList& want, double tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].sizes(), want[i].sizes()) << what << " output " << i;
    const std::string diff = compare(got[i], want[i], tol, tol);
    EXPECT_TRUE(diff.empty()) << what << " output " << i << ": " << diff;
  }
}

// x in the layouts the kernels take: NCHW, channels-last, and strided.
std::vector<std::pair<std::string, Tensor>> layouts(const Tensor& x) {
  std::vector<std::pair<std::string, Tensor>> r{{"contiguous", x}, {"strided", noncontiguous_copy(x)}};
  if (x.dim() == 4) r.emplace_back("channels_last", contiguous(x, MemoryFormat::ChannelsLast));
  return r;
}

const std::vector<Shape> kShapes = {{5, 3}, {4, 3, 7}, {3, 4, 5, 6}, {2, 3, 1, 1}, {2, 5, 3, 17}};

TEST(BatchNormKernel, ForwardMatchesTheComposite) {
  for (DType t : {kFloat32, kFloat64}) {
    const double tol = t == kFloat32 ? 2e-5 : 1e-12;
    uint64_t seed = 1;
    for (const Shape& s : kShapes) {
      Tensor w = sample({s[1]}, 0.5, 1.5, seed++).to(t), b = sample({s[1]}, -1, 1, seed++).to(t);
      for (auto [name, x] : layouts((sample(s, -3, 5, seed++)).to(t))) {
        for (int affine = 0; affine < 4; ++affine) {
          const bool has_w = affine & 1, has_b = affine & 2;
          TensorList in{x};
          if (has_w) in.push_back(w);
          if (has_b) in.push_back(b);
          const Attrs a{1e-5, has_w, has_b};
          TensorList got = kernel_of("native_batch_norm", in, a);
          expect_close(got, composite_of("native_batch_norm", in, a), tol,
                       name + " " + str(s) + " " + dt(t) + " affine " + std::to_string(affine));
          if (name == "channels_last" && !x.is_contiguous())
            EXPECT_TRUE(is_contiguous(got[0], MemoryFormat::ChannelsLast) && !got[0].is_contiguous()) << str(s);
        }
      }
    }
  }
}

TEST(BatchNormKernel, BackwardMatchesTheComposite) {
  for (DType t : {kFloat32, kFloat64}) {
    const double tol = t == kFloat32 ? 5e-5 : 1e-11;
    uint64_t seed = 100;
    for (const Shape& s : kShapes) {
      Tensor w = sample({s[1]}, 0.5, 1.5, seed++).to(t);
      Tensor dy0 = sample(s, -1, 1, seed++).to(t);
      for (auto [name, x] : layouts(sample(s, -3, 5, seed++).to(t))) {
        const Shape dims = s.size() == 2 ? Shape{0} : s.size() == 3 ? Shape{0, 2} : Shape{0, 2, 3};
        Tensor mean_k = x.mean(dims), var_k = var(x, dims, /*unbiased=*/false);
        // dy in x's layout, and (4-d) in the other one.
        std::vector<Tensor> dys{dy0};
        if (s.size() == 4) dys.push_back(contiguous(dy0, MemoryFormat::ChannelsLast));
        for (const Tensor& dy : dys)
          for (bool has_w : {false, true}) {
            TensorList in{dy, x, mean_k, var_k};
            if (has_w) in.push_back(w);
            expect_close(kernel_of("native_batch_norm_backward", in, {1e-5}),
                         composite_of("native_batch_norm_backward", in, {1e-5}), tol,
                         name + " " + str(s) + " " + dt(t) + (has_w ? " weight" : ""));
          }
      }
    }
  }
}

TEST(BatchNormKernel, ChannelAffineMatchesTheComposite) {
  for (DType t : {kFloat32, kFloat64}) {
    uint64_t seed = 200;
    for (const Shape& s : kShapes) {
      TensorList p{sample({s[1]}, -1, 1, seed), sample({s[1]}, 0.5, 2, seed + 1), sample({s[1]}, -1, 1, seed + 2)};
      seed += 3;
      for (auto [name, x] : layouts(sample(s, -3, 5, seed++).to(t))) {
        TensorList in{x, p[0].to(t), p[1].to(t), p[2].to(t)};
        expect_close(kernel_of("channel_affine", in, {}), composite_of("channel_affine", in, {}),
                     t == kFloat32 ? 1e-5 : 1e-13, name + " " + str(s) + " " + dt(t));
      }
    }
  }
}

// Values around 1e4 with a spread of 1: float32 statistics summed plainly, or
// a mean rounded to float32 (ulp 1e-3 there), would be off by ~1e-3 in y.
TEST(BatchNormKernel, AccurateFarFromZero) {
  Tensor x64 = sample({8, 3, 6, 6}, -1, 1, 300) + 1e4;
  Tensor x32 = x64.to(kFloat32);
  Tensor exact_in = x32.to(kFloat64);  // the float32 values, exactly
  for (auto [name, x] : layouts(x32)) {
    TensorList got = kernel_of("native_batch_norm", {x}, {1e-5, false, false});
    TensorList want = composite_of("native_batch_norm", {exact_in}, {1e-5, false, false});
    EXPECT_TRUE(compare(got[0].to(kFloat64), want[0], 2e-6, 0).empty()) << name << compare(got[0].to(kFloat64), want[0], 2e-6, 0);
    EXPECT_TRUE(compare(got[1].to(kFloat64), want[1], 1e-3, 0).empty()) << name;  // mean: float32's own rounding
    EXPECT_TRUE(compare(got[2].to(kFloat64), want[2], 0, 1e-6).empty()) << name << compare(got[2].to(kFloat64), want[2], 0, 1e-6);
    Tensor dy = sample({8, 3, 6, 6}, -1, 1, 301);
    TensorList gb = kernel_of("native_batch_norm_backward", {dy.to(kFloat32), x, got[1], got[2]}, {1e-5});
    TensorList wb = composite_of("native_batch_norm_backward", {dy, exact_in, want[1], want[2]}, {1e-5});
    EXPECT_TRUE(compare(gb[0].to(kFloat64), wb[0], 2e-6, 0).empty()) << name << compare(gb[0].to(kFloat64), wb[0], 2e-6, 0);
    EXPECT_TRUE(compare(gb[1].to(kFloat64), wb[1], 1e-4, 1e-6).empty()) << name << compare(gb[1].to(kFloat64), wb[1], 1e-4, 1e-6);
  }
  // float64 far from zero: float64's precision, not 1e4^2's.
  TensorList got = kernel_of("native_batch_norm", {x64 + 1e8}, {1e-5, false, false});
  TensorList want = composite_of("native_batch_norm", {x64}, {1e-5, false, false});
  EXPECT_TRUE(compare(got[0], want[0], 1e-7, 0).empty()) << compare(got[0], want[0], 1e-7, 0);
}

// PyTorch: a channel with a NaN is NaN; one with an inf has mean inf (the
// running mean becomes inf) and NaN variance, so y is NaN there; other
// channels are untouched.
TEST(BatchNormKernel, NanAndInfStayInTheirChannel) {
  for (bool channels_last : {false, true}) {
    Tensor x = sample({4, 3, 2, 2}, -2, 2, 400);
    x = with_value(x, ravel({0, 0, 1, 1}, x.sizes()), std::numeric_limits<double>::quiet_NaN());
    x = with_value(x, ravel({2, 1, 0, 1}, x.sizes()), std::numeric_limits<double>::infinity());
    if (channels_last) x = contiguous(x, MemoryFormat::ChannelsLast);
    Tensor rm = zeros({3}, dtype(kFloat64)), rv = ones({3}, dtype(kFloat64));
    Tensor y = batch_norm(x, rm, rv, Tensor(), Tensor(), true);
    EXPECT_TRUE(isnan(y.select(1, 0)).all().item<bool>());
    EXPECT_TRUE(isnan(y.select(1, 1)).all().item<bool>());
    EXPECT_TRUE(isfinite(y.select(1, 2)).all().item<bool>());
    EXPECT_TRUE(std::isnan(rm.at<double>({0})));
    EXPECT_EQ(rm.at<double>({1}), std::numeric_limits<double>::infinity());
    EXPECT_TRUE(std::isnan(rv.at<double>({1})));
    EXPECT_TRUE(std::isfinite(rm.at<double>({2})) && std::isfinite(rv.at<double>({2})));
    // -inf and +inf in one channel: a NaN mean.
    Tensor z = sample({4, 2}, -2, 2, 401);
    z = with_value(z, 1, std::numeric_limits<double>::infinity());
    z = with_value(z, 7, -std::numeric_limits<double>::infinity());
    TensorList out = kernel_of("native_batch_norm", {z}, {1e-5, false, false});
    EXPECT_TRUE(std::isnan(out[1].at<double>({1})));
    EXPECT_TRUE(std::isfinite(out[1].at<double>({0})));
  }
}

// The sums' order depends on the shape only: one thread or two, same bits.
TEST(BatchNormKernel, SameBitsOnAnyNumberOfThreads) {
  const int before = get_num_threads();
  for (bool channels_last : {false, true}) {
    Tensor x = sample({16, 8, 24, 24}, -2, 2, 500).to(kFloat32);
    if (channels_last) x = contiguous(x, MemoryFormat::ChannelsLast);
    Tensor dy = sample({16, 8, 24, 24}, -1, 1, 501).to(kFloat32);
    std::vector<TensorList> runs;
    for (int threads : {1, 2}) {
      set_num_threads(threads);
      TensorList f = kernel_of("native_batch_norm", {x}, {1e-5, false, false});
      TensorList b = kernel_of("native_batch_norm_backward", {dy, x, f[1], f[2]}, {1e-5});
      runs.push_back({f[0], f[1], f[2], b[0], b[1], b[2]});
    }
    for (std::size_t i = 0; i < runs[0].size(); ++i) EXPECT_TRUE(equal(runs[0][i], runs[1][i])) << i;
  }
  set_num_threads(before);
}

}  // namespace
}  // namespace nabla::testing

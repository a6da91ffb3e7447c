// OpInfo entries for batch_norm (training and eval, [N,C], [N,C,L],
// [N,C,H,W], with and without affine/running stats), layer_norm and
// group_norm, with references that normalize groups of host values in naive
// loops; plus focused tests of batch_norm's running-statistics updates.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "support/op_info.h"

namespace nabla::testing {
namespace {

constexpr double kEps = 1e-5;

// Normalizes v per group (group_of(i) names element i's group) with the
// biased variance, then applies y * scale(i) + shift(i).
std::vector<double> normalize_groups(const std::vector<double>& v, const std::function<int64_t(int64_t)>& group_of,
                                     const std::function<double(int64_t)>& scale,
                                     const std::function<double(int64_t)>& shift) {
  std::map<int64_t, std::pair<double, double>> stats;  // group -> (sum, count)
  for (std::size_t i = 0; i < v.size(); ++i) {
    auto& s = stats[group_of(static_cast<int64_t>(i))];
    s.first += v[i];
    s.second += 1;
  }
  std::map<int64_t, double> var;
  for (std::size_t i = 0; i < v.size(); ++i) {
    int64_t g = group_of(static_cast<int64_t>(i));
    double m = stats[g].first / stats[g].second;
    var[g] += (v[i] - m) * (v[i] - m) / stats[g].second;
  }
  std::vector<double> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    int64_t g = group_of(static_cast<int64_t>(i));
    double m = stats[g].first / stats[g].second;
    out[i] = (v[i] - m) / std::sqrt(var[g] + kEps) * scale(static_cast<int64_t>(i)) + shift(static_cast<int64_t>(i));
  }
  return out;
}

// Value of an optional per-channel (or per-feature) vector, `fallback` if absent.
std::function<double(int64_t)> per_element(const Tensor& t, std::function<int64_t(int64_t)> index, double fallback) {
  if (!t.defined()) return [fallback](int64_t) { return fallback; };
  std::vector<double> v = values(t);
  return [v, index](int64_t i) { return v[index(i)]; };
}

std::function<int64_t(int64_t)> channel_of(const Shape& s) {
  return [s](int64_t i) { return unravel(i, s)[1]; };
}

// ---- batch_norm ----------------------------------------------------------
// inputs: x, weight, bias (either may be absent when affine is false).
// With `relu`, batch_norm_relu against relu of the reference: on the CPU
// native_batch_norm_relu and its backward; on another device (the opaque one)
// batch_norm then relu.
OpInfo batch_norm_train(const std::string& name, std::vector<Shape> shapes, bool affine, bool running,
                        bool relu = false) {
  OpInfo info;
  info.name = name;
  // On the CPU batch_norm runs native_batch_norm, whose gradient rule runs
  // native_batch_norm_backward (differentiated in turn by gradgradcheck).
  info.covers = {"batch_norm", "native_batch_norm", "native_batch_norm_backward"};
  if (relu) info.covers = {"batch_norm_relu", "native_batch_norm_relu", "native_batch_norm_relu_backward"};
  info.run = [affine, running, relu](const Tensors& in) {
    const Tensor& x = in[0];
    int64_t c = x.sizes()[1];
    Tensor rm = running ? zeros({c}, TensorOptions(x.dtype()).device(x.device())) : Tensor();
    Tensor rv = running ? ones({c}, TensorOptions(x.dtype()).device(x.device())) : Tensor();
    return Tensors{(relu ? batch_norm_relu : batch_norm)(x, rm, rv, affine ? in[1] : Tensor(),
                                                         affine ? in[2] : Tensor(), true, 0.1, kEps)};
  };
  info.samples = [shapes, affine] {
    std::vector<Tensors> r;
    uint64_t seed = 21;
    for (const Shape& s : shapes) {
      Tensors t{sample(s, -2, 2, seed++)};
      if (affine) {
        t.push_back(sample({s[1]}, 0.5, 1.5, seed++));
        t.push_back(sample({s[1]}, -1, 1, seed++));
      }
      r.push_back(t);
    }
    return r;
  };
  info.reference = [affine, relu](const Tensors& in) {
    const Shape& s = in[0].sizes();
    auto ch = channel_of(s);
    auto y = normalize_groups(values(in[0]), ch, per_element(affine ? in[1] : Tensor(), ch, 1.0),
                              per_element(affine ? in[2] : Tensor(), ch, 0.0));
    if (relu)
      for (double& v : y) v = v > 0 ? v : 0.0;
    return Tensors{from_values(y, s)};
  };
  if (relu) {
    // No output within 1e-3 of ReLU's kink, where finite differences straddle it.
    auto samples = info.samples;
    auto reference = info.reference;
    info.samples = [samples, reference] {
      std::vector<Tensors> r = samples();
      for (const Tensors& t : r)
        for (double v : values(reference(t)[0]))
          NABLA_CHECK(v == 0 || v > 1e-3, "batch_norm_relu samples: an output is ", v, ", at ReLU's kink");
      return r;
    };
  }
  return info;
}

NABLA_OP_INFO(batch_norm_train("batch_norm_train", {{4, 3}, {2, 3, 5}, {2, 3, 2, 2}}, true, true));
NABLA_OP_INFO(batch_norm_train("batch_norm_train_no_affine_no_stats", {{5, 2}, {2, 2, 3, 2}}, false, false));

NABLA_OP_INFO(batch_norm_train("batch_norm_relu_train", {{4, 3}, {2, 3, 5}, {2, 3, 2, 2}}, true, true, true));

// native_batch_norm_relu and its backward, called as table ops (so that the
// opaque device runs their generic kernels; batch_norm_relu() runs
// batch_norm then relu there).
OpInfo native_batch_norm_relu_info(const std::string& name, std::vector<Shape> shapes, bool affine) {
  OpInfo info = batch_norm_train(name, std::move(shapes), affine, false, true);
  info.covers = {"native_batch_norm_relu", "native_batch_norm_relu_backward"};
  info.run = [affine](const Tensors& in) {
    TensorList ins{in[0]};
    if (affine) {
      ins.push_back(in[1]);
      ins.push_back(in[2]);
    }
    return Tensors{call(*find_op("native_batch_norm_relu"), Inputs(ins.data(), ins.size()), {kEps, affine, affine})[0]};
  };
  return info;
}
NABLA_OP_INFO(native_batch_norm_relu_info("native_batch_norm_relu", {{4, 3}, {2, 3, 5}, {2, 3, 2, 2}}, true));
NABLA_OP_INFO(native_batch_norm_relu_info("native_batch_norm_relu_no_affine", {{5, 2}, {2, 2, 3, 2}}, false));

// Eval mode: inputs x, running_mean, running_var, weight, bias.
OpInfo batch_norm_eval() {
  OpInfo info;
  info.name = "batch_norm_eval";
  info.covers = {"batch_norm", "channel_affine"};
  info.run = [](const Tensors& in) { return Tensors{batch_norm(in[0], in[1], in[2], in[3], in[4], false)}; };
  info.samples = [] {
    std::vector<Tensors> r;
    for (Shape s : {Shape{4, 3}, Shape{2, 3, 4}, Shape{2, 3, 2, 3}})
      r.push_back({sample(s, -2, 2, 31), sample({s[1]}, -1, 1, 32), sample_positive({s[1]}, 33),
                   sample({s[1]}, 0.5, 1.5, 34), sample({s[1]}, -1, 1, 35)});
    return r;
  };
  info.reference = [](const Tensors& in) {
    const Shape& s = in[0].sizes();
    std::vector<double> x = values(in[0]), rm = values(in[1]), rv = values(in[2]), w = values(in[3]),
                        b = values(in[4]);
    for (int64_t i = 0; i < in[0].numel(); ++i) {
      int64_t c = unravel(i, s)[1];
      x[i] = (x[i] - rm[c]) / std::sqrt(rv[c] + kEps) * w[c] + b[c];
    }
    return Tensors{from_values(x, s)};
  };
  return info;
}
NABLA_OP_INFO(batch_norm_eval());

// ---- layer_norm ----------------------------------------------------------
OpInfo layer_norm_info(const std::string& name, std::vector<std::pair<Shape, Shape>> cases, bool affine) {
  OpInfo info;
  info.name = name;
  info.covers = {"layer_norm"};
  info.run = [affine](const Tensors& in) {
    // normalized_shape: the weight's shape, or (without affine) carried by in[1]'s shape.
    return Tensors{layer_norm(in[0], in[1].sizes(), affine ? in[1] : Tensor(), affine ? in[2] : Tensor())};
  };
  info.samples = [cases] {
    std::vector<Tensors> r;
    uint64_t seed = 41;
    for (const auto& [xs, ns] : cases)
      r.push_back({sample(xs, -2, 2, seed), sample(ns, 0.5, 1.5, seed + 1), sample(ns, -1, 1, seed + 2)});
    return r;
  };
  info.reference = [affine](const Tensors& in) {
    const Shape& s = in[0].sizes();
    int64_t inner = in[1].numel();
    auto group = [inner](int64_t i) { return i / inner; };
    auto feature = [inner](int64_t i) { return i % inner; };
    auto y = normalize_groups(values(in[0]), group, per_element(affine ? in[1] : Tensor(), feature, 1.0),
                              per_element(affine ? in[2] : Tensor(), feature, 0.0));
    return Tensors{from_values(y, s)};
  };
  if (!affine) info.grad_inputs = {0};
  return info;
}
NABLA_OP_INFO(layer_norm_info("layer_norm", {{{3, 5}, {5}}, {{2, 3, 4}, {3, 4}}, {{2, 2, 3}, {3}}}, true));
NABLA_OP_INFO(layer_norm_info("layer_norm_no_affine", {{{4, 6}, {6}}, {{2, 3, 2}, {2, 3, 2}}}, false));

// ---- group_norm ----------------------------------------------------------
OpInfo group_norm_info(const std::string& name, int64_t groups, std::vector<Shape> shapes, bool affine) {
  OpInfo info;
  info.name = name;
  info.covers = {"group_norm"};
  info.run = [groups, affine](const Tensors& in) {
    return Tensors{group_norm(in[0], groups, affine ? in[1] : Tensor(), affine ? in[2] : Tensor())};
  };
  info.samples = [shapes] {
    std::vector<Tensors> r;
    uint64_t seed = 51;
    for (const Shape& s : shapes)
      r.push_back({sample(s, -2, 2, seed), sample({s[1]}, 0.5, 1.5, seed + 1), sample({s[1]}, -1, 1, seed + 2)});
    return r;
  };
  info.reference = [groups, affine](const Tensors& in) {
    const Shape& s = in[0].sizes();
    int64_t c = s[1];
    auto group = [s, c, groups](int64_t i) {
      auto idx = unravel(i, s);
      return idx[0] * groups + idx[1] / (c / groups);
    };
    auto ch = channel_of(s);
    auto y = normalize_groups(values(in[0]), group, per_element(affine ? in[1] : Tensor(), ch, 1.0),
                              per_element(affine ? in[2] : Tensor(), ch, 0.0));
    return Tensors{from_values(y, s)};
  };
  if (!affine) info.grad_inputs = {0};
  return info;
}
NABLA_OP_INFO(group_norm_info("group_norm_2_groups", 2, {{2, 4, 3}, {3, 4, 2, 2}}, true));
NABLA_OP_INFO(group_norm_info("group_norm_3_groups", 3, {{2, 6, 2}, {1, 3, 2, 3}}, true));
NABLA_OP_INFO(group_norm_info("group_norm_1_group_no_affine", 1, {{2, 3, 4}, {3, 2}}, false));

// ---- running statistics ----------------------------------------------------

TEST(BatchNorm, TrainingUpdatesRunningStatsWithUnbiasedVariance) {
  Tensor x = sample({4, 2, 3}, -2, 2, 61);
  Tensor rm = tensor({0.5, -0.25}, dtype(kFloat64)), rv = tensor({2.0, 0.5}, dtype(kFloat64));
  std::vector<double> rm0 = values(rm), rv0 = values(rv);
  batch_norm(x, rm, rv, Tensor(), Tensor(), /*training=*/true, /*momentum=*/0.2);
  std::vector<double> v = values(x);
  for (int64_t c = 0; c < 2; ++c) {
    std::vector<double> xs;
    for (int64_t i = 0; i < x.numel(); ++i)
      if (unravel(i, x.sizes())[1] == c) xs.push_back(v[i]);
    double m = 0, ss = 0;
    for (double e : xs) m += e / xs.size();
    for (double e : xs) ss += (e - m) * (e - m);
    double unbiased = ss / (xs.size() - 1);
    EXPECT_NEAR(rm.at<double>({c}), 0.8 * rm0[c] + 0.2 * m, 1e-12);
    EXPECT_NEAR(rv.at<double>({c}), 0.8 * rv0[c] + 0.2 * unbiased, 1e-12);
  }
}

TEST(BatchNorm, EvalDoesNotTouchRunningStatsAndUsesThem) {
  Tensor x = sample({3, 2}, -2, 2, 62);
  Tensor rm = tensor({1.0, -1.0}, dtype(kFloat64)), rv = tensor({4.0, 0.25}, dtype(kFloat64));
  Tensor y = batch_norm(x, rm, rv, Tensor(), Tensor(), /*training=*/false);
  EXPECT_EQ(values(rm), (std::vector<double>{1.0, -1.0}));
  EXPECT_EQ(values(rv), (std::vector<double>{4.0, 0.25}));
  EXPECT_NEAR(y.at<double>({0, 0}), (x.at<double>({0, 0}) - 1.0) / std::sqrt(4.0 + kEps), 1e-12);
  EXPECT_NEAR(y.at<double>({2, 1}), (x.at<double>({2, 1}) + 1.0) / std::sqrt(0.25 + kEps), 1e-12);
}

TEST(BatchNorm, RepeatedTrainingStepsConvergeToBatchStats) {
  // The same batch every step: running stats approach its mean / unbiased var.
  Tensor x = sample({8, 3}, -1, 3, 63).to(kFloat32);
  Tensor rm = zeros({3}), rv = ones({3});
  for (int i = 0; i < 200; ++i) batch_norm(x, rm, rv, Tensor(), Tensor(), true, 0.1);
  Tensor expected_mean = x.mean({0}), expected_var = var(x, {0}, /*unbiased=*/true);
  EXPECT_TRUE(compare(rm, expected_mean, 1e-5, 1e-5).empty()) << compare(rm, expected_mean, 1e-5, 1e-5);
  EXPECT_TRUE(compare(rv, expected_var, 1e-5, 1e-5).empty()) << compare(rv, expected_var, 1e-5, 1e-5);
}

TEST(BatchNorm, RunningStatsStayOutOfTheGraph) {
  Tensor x = sample({4, 2}, -2, 2, 64).requires_grad_();
  Tensor rm = zeros({2}, dtype(kFloat64)), rv = ones({2}, dtype(kFloat64));
  Tensor y = batch_norm(x, rm, rv, Tensor(), Tensor(), true);
  EXPECT_FALSE(rm.requires_grad());
  EXPECT_FALSE(rv.requires_grad());
  (y * y).sum().backward();  // would fail if the in-place update had invalidated saved tensors
  EXPECT_TRUE(x.grad().defined());
}

}  // namespace
}  // namespace nabla::testing
